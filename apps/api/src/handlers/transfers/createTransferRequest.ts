import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/transfer_request: Request a transfer. Scaffolded by `pnpm generate`; replace the body. */
export const createTransferRequest: Handlers['createTransferRequest'] = async () => {
  throw notImplemented('createTransferRequest');
};
