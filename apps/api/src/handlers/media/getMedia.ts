import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/media/{id}: Get a media file. Scaffolded by `pnpm generate`; replace the body. */
export const getMedia: Handlers['getMedia'] = async () => {
  throw notImplemented('getMedia');
};
