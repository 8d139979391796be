import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/media/{id}/signed-url/read: a bare signed read address (15 minutes). */
export const getMediaReadAddress: Handlers['getMediaReadAddress'] = async ({ path }, ctx) => {
  const media = ctx.services.media;
  return { status: 200, body: await media.readAddress(ownerOf(ctx), path.id, media.baseUrl(ctx.header('host'))) };
};
