import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/fill_request: Submit a fill request. Scaffolded by `pnpm generate`; replace the body. */
export const createFillRequest: Handlers['createFillRequest'] = async () => {
  throw notImplemented('createFillRequest');
};
