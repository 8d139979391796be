import { now } from '../../clock.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/availability: a product's stock by location, from the operator's inventory table. */
export const getAvailability: Handlers['getAvailability'] = async ({ query }, ctx) => {
  return { status: 200, body: await ctx.services.locationLookups.availability(query.ndc, query.quantity, query.zip?.slice(0, 5), now()) };
};
