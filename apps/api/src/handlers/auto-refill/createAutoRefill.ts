import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/auto-refill/{prescription_token}: Subscribe a prescription to auto-refill. Scaffolded by `pnpm generate`; replace the body. */
export const createAutoRefill: Handlers['createAutoRefill'] = async () => {
  throw notImplemented('createAutoRefill');
};
