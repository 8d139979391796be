import type { Handlers } from '../../generated/handlers.js';

/** Verifiers may cache the keys for a while; a rotation keeps the old key published far longer. */
const CACHEABLE = { 'cache-control': 'public, max-age=300' };

export const getJsonWebKeySet: Handlers['getJsonWebKeySet'] = async (_input, ctx) => {
  return { status: 200, body: ctx.services.accessTokens.jwks(), headers: CACHEABLE };
};
