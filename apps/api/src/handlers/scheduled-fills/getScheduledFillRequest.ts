import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /scheduled-fill-requests: Get a scheduled fill request. Scaffolded by `pnpm generate`; replace the body. */
export const getScheduledFillRequest: Handlers['getScheduledFillRequest'] = async () => {
  throw notImplemented('getScheduledFillRequest');
};
