import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/auto-refill: List auto-refill subscriptions. Scaffolded by `pnpm generate`; replace the body. */
export const listAutoRefills: Handlers['listAutoRefills'] = async () => {
  throw notImplemented('listAutoRefills');
};
