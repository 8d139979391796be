import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/media/{id}/content: the bytes, through a signed read address (no API key). */
export const readMediaContent: Handlers['readMediaContent'] = async ({ path, query }, ctx) => {
  const { bytes, contentType } = await ctx.services.media.read({ id: path.id, ...query });
  return {
    status: 200,
    body: bytes as unknown as string,
    contentType,
    headers: { 'content-disposition': 'inline', 'cache-control': 'private, no-store', 'x-content-type-options': 'nosniff' },
  };
};
