import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { mediaName } from '../../media/media-presenter.js';

/** GET /v2/media/{id}: the file with a 24-hour signed read address. */
export const getMediaSignedUrl: Handlers['getMediaSignedUrl'] = async ({ path }, ctx) => {
  const media = ctx.services.media;
  const row = await media.get(ownerOf(ctx), path.id);
  return { status: 200, body: { id: row.id, name: mediaName(row), status: row.status, url: media.longAddress(row, 'read', media.baseUrl(ctx.header('host'))) } };
};
