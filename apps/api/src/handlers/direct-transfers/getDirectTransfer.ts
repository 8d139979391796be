import { ownerOf } from '../../http/owner-of.js';
import { presentDirectTransfer } from '../../direct-transfers/direct-transfer-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const getDirectTransfer: Handlers['getDirectTransfer'] = async ({ path }, ctx) => {
  const directTransfer = await ctx.services.directTransfers.get(ownerOf(ctx), path.direct_transfer_token);
  return { status: 200, body: presentDirectTransfer(directTransfer) };
};
