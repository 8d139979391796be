import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/direct_transfer/{direct_transfer_token}: Get a direct transfer. Scaffolded by `pnpm generate`; replace the body. */
export const getDirectTransfer: Handlers['getDirectTransfer'] = async () => {
  throw notImplemented('getDirectTransfer');
};
