import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/auto-refill/{prescription_token}: Get an auto-refill subscription. Scaffolded by `pnpm generate`; replace the body. */
export const getAutoRefill: Handlers['getAutoRefill'] = async () => {
  throw notImplemented('getAutoRefill');
};
