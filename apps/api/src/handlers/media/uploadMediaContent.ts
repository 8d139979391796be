import { badRequest } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** PUT /v1/media/{id}/content: the raw bytes, through a signed write address (no API key); checked before answering. */
export const uploadMediaContent: Handlers['uploadMediaContent'] = async ({ path, query, body }, ctx) => {
  const bytes = body as unknown;
  if (!Buffer.isBuffer(bytes)) throw badRequest('Body must be the raw bytes of the file.');
  await ctx.services.media.upload({ id: path.id, ...query }, bytes, ctx.requestId);
  return { status: 204, body: undefined };
};
