import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

/** GET /v1/pharmacy-coverage: the best location for the ship-to state and plan (403 unless the customer is enabled). */
export const getPharmacyCoverage: Handlers['getPharmacyCoverage'] = async ({ query }, ctx) => {
  return { status: 200, body: await ctx.services.coverage.best(ownerOf(ctx).customerId, query) };
};
