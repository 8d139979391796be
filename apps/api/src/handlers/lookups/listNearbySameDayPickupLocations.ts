import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/nearby_same_day_pickup_locations: same-day locations near the address's ZIP code centroid, nearest first. */
export const listNearbySameDayPickupLocations: Handlers['listNearbySameDayPickupLocations'] = async ({ query }, ctx) => {
  const results = await ctx.services.locationLookups.nearbySameDay(query, query.radius_miles ?? 10);
  return { status: 200, body: { results } };
};
