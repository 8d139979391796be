import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/transfer_request: List transfer requests. Scaffolded by `pnpm generate`; replace the body. */
export const listTransferRequests: Handlers['listTransferRequests'] = async () => {
  throw notImplemented('listTransferRequests');
};
