import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/external_location_matches: Match several addresses to external locations. Scaffolded by `pnpm generate`; replace the body. */
export const matchExternalLocations: Handlers['matchExternalLocations'] = async () => {
  throw notImplemented('matchExternalLocations');
};
