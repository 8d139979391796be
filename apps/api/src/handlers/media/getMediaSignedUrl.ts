import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v2/media/{id}: Get a signed address of a media file. Scaffolded by `pnpm generate`; replace the body. */
export const getMediaSignedUrl: Handlers['getMediaSignedUrl'] = async () => {
  throw notImplemented('getMediaSignedUrl');
};
