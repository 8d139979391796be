import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/direct_transfer: Submit a direct transfer. Scaffolded by `pnpm generate`; replace the body. */
export const createDirectTransfer: Handlers['createDirectTransfer'] = async () => {
  throw notImplemented('createDirectTransfer');
};
