import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /.well-known/jwks.json: Get the keys that verify access tokens. Scaffolded by `pnpm generate`; replace the body. */
export const getJsonWebKeySet: Handlers['getJsonWebKeySet'] = async () => {
  throw notImplemented('getJsonWebKeySet');
};
