import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/external_location_matches: Match one address to an external location. Scaffolded by `pnpm generate`; replace the body. */
export const matchExternalLocation: Handlers['matchExternalLocation'] = async () => {
  throw notImplemented('matchExternalLocation');
};
