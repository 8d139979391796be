import { principalOf } from '../../auth/principal.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentTransfer } from '../../transfers/transfer-presenter.js';

export const getTransferRequest: Handlers['getTransferRequest'] = async ({ path }, ctx) => {
  const record = await ctx.services.transfers.get(principalOf(ctx), path.token);
  // The source's read answers an array; it holds exactly this one record.
  return { status: 200, body: [presentTransfer(record)] };
};
