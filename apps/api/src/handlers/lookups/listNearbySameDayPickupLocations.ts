import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/nearby_same_day_pickup_locations: List nearby same-day pickup locations. Scaffolded by `pnpm generate`; replace the body. */
export const listNearbySameDayPickupLocations: Handlers['listNearbySameDayPickupLocations'] = async () => {
  throw notImplemented('listNearbySameDayPickupLocations');
};
