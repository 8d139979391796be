import { ownerOf } from '../../http/owner-of.js';
import { presentDirectTransferReceipt } from '../../direct-transfers/direct-transfer-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const createDirectTransfer: Handlers['createDirectTransfer'] = async ({ body }, ctx) => {
  const directTransfer = await ctx.services.directTransfers.create(ownerOf(ctx), body, ctx.requestId);
  return { status: 201, body: presentDirectTransferReceipt(directTransfer) };
};
