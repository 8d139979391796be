import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { mediaName } from '../../media/media-presenter.js';

/** POST /v2/media: a file by name, with its signed upload address. */
export const createMediaUpload: Handlers['createMediaUpload'] = async ({ body }, ctx) => {
  const media = ctx.services.media;
  const row = await media.createUpload(ownerOf(ctx), ctx.requestId, body);
  const uploadUrl = media.longAddress(row, 'write', media.baseUrl(ctx.header('host')));
  return { status: 200, body: { id: row.id, name: mediaName(row), status: row.status, upload_url: uploadUrl } };
};
