import { invalidField } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/external_location_matches: each address's location, by its `reference`. */
export const matchExternalLocations: Handlers['matchExternalLocations'] = async ({ body }, ctx) => {
  const seen = new Set<string>();
  body.addresses.forEach((address, i) => {
    if (seen.has(address.reference)) throw invalidField(`addresses.${i}.reference`, 'must be unique');
    seen.add(address.reference);
  });
  const matches: Record<string, { matched: boolean; location: Awaited<ReturnType<typeof ctx.services.locationLookups.match>> | null }> = {};
  for (const { reference, ...address } of body.addresses) {
    const location = await ctx.services.locationLookups.match(address);
    matches[reference] = { matched: location !== undefined, location: location ?? null };
  }
  return { status: 200, body: { matches } as never };
};
