import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentTransfer } from '../../transfers/transfer-presenter.js';

export const getTransferRequest: Handlers['getTransferRequest'] = async ({ path }, ctx) => {
  const record = await ctx.services.transfers.get(ownerOf(ctx), path.token);
  // The source's read answers an array; it holds exactly this one record.
  return { status: 200, body: [presentTransfer(record)] };
};
