import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** DELETE /v1/auto-refill/{prescription_token}: Cancel an auto-refill subscription. Scaffolded by `pnpm generate`; replace the body. */
export const cancelAutoRefill: Handlers['cancelAutoRefill'] = async () => {
  throw notImplemented('cancelAutoRefill');
};
