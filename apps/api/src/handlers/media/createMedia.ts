import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentMediaMetadata } from '../../media/media-presenter.js';

/** POST /v1/media: a file named by the client's UUID, awaiting its upload. */
export const createMedia: Handlers['createMedia'] = async ({ body }, ctx) => {
  const row = await ctx.services.media.createNamed(ownerOf(ctx), ctx.requestId, body);
  return { status: 200, body: presentMediaMetadata(row) };
};
