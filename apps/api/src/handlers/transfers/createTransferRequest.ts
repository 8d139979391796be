import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentTransferReceipt } from '../../transfers/transfer-presenter.js';

export const createTransferRequest: Handlers['createTransferRequest'] = async ({ body }, ctx) => {
  const created = await ctx.services.transfers.create(ownerOf(ctx), body, ctx.requestId);
  return { status: 201, body: presentTransferReceipt(created) };
};
