import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/fill_request/{url_token}: Get a fill request. Scaffolded by `pnpm generate`; replace the body. */
export const getFillRequest: Handlers['getFillRequest'] = async () => {
  throw notImplemented('getFillRequest');
};
