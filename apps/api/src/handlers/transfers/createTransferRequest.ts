import { principalOf } from '../../auth/principal.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentTransferReceipt } from '../../transfers/transfer-presenter.js';
import type { TransferRequestCreate } from '../../transfers/transfer-service.js';

export const createTransferRequest: Handlers['createTransferRequest'] = async ({ body }, ctx) => {
  const created = await ctx.services.transfers.create(principalOf(ctx), body as TransferRequestCreate);
  return { status: 201, body: presentTransferReceipt(created) };
};
