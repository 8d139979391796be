import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/external_transfers/{id}: Get an external transfer. Scaffolded by `pnpm generate`; replace the body. */
export const getExternalTransfer: Handlers['getExternalTransfer'] = async () => {
  throw notImplemented('getExternalTransfer');
};
