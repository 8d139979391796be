import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/transfer_request/{token}: Get a transfer request. Scaffolded by `pnpm generate`; replace the body. */
export const getTransferRequest: Handlers['getTransferRequest'] = async () => {
  throw notImplemented('getTransferRequest');
};
