import type { Handlers } from '../../generated/handlers.js';

/** The token answer, like every answer of the exchange, must not be cached (RFC 6749 §5.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

export const createAccessToken: Handlers['createAccessToken'] = async ({ body }, ctx) => {
  const token = await ctx.services.tokenExchange.exchange(body, ctx.header('authorization'));
  return { status: 200, body: token, headers: NO_STORE };
};
