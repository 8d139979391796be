import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/fill_requests: List fill requests. Scaffolded by `pnpm generate`; replace the body. */
export const listFillRequests: Handlers['listFillRequests'] = async () => {
  throw notImplemented('listFillRequests');
};
