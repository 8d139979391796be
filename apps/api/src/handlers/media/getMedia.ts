import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentMediaMetadata } from '../../media/media-presenter.js';

/** GET /v1/media/{id}: the file's record (the real platform's metadata). */
export const getMedia: Handlers['getMedia'] = async ({ path }, ctx) => {
  return { status: 200, body: presentMediaMetadata(await ctx.services.media.get(ownerOf(ctx), path.id)) };
};
