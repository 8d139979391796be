import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /oauth/token: Exchange client credentials for an access token. Scaffolded by `pnpm generate`; replace the body. */
export const createAccessToken: Handlers['createAccessToken'] = async () => {
  throw notImplemented('createAccessToken');
};
