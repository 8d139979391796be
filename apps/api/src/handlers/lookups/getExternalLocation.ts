import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/external_locations/{id}: one pharmacy location of the reference data. */
export const getExternalLocation: Handlers['getExternalLocation'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.locationLookups.get(path.id) };
};
