import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/external_locations: List external locations by zip code. Scaffolded by `pnpm generate`; replace the body. */
export const listExternalLocations: Handlers['listExternalLocations'] = async () => {
  throw notImplemented('listExternalLocations');
};
