import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/media/{id}/signed-url/write: a bare signed upload address (24 hours). */
export const getMediaWriteAddress: Handlers['getMediaWriteAddress'] = async ({ path }, ctx) => {
  const media = ctx.services.media;
  return { status: 200, body: await media.writeAddress(ownerOf(ctx), path.id, media.baseUrl(ctx.header('host'))) };
};
