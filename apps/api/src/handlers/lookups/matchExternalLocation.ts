import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/external_location_matches: the location at one address, or none yet. */
export const matchExternalLocation: Handlers['matchExternalLocation'] = async ({ query }, ctx) => {
  const location = await ctx.services.locationLookups.match(query);
  return { status: 200, body: { matched: location !== undefined, location: location ?? null } };
};
