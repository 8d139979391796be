import { invalidField } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';
import { decodeCursor, encodeCursor } from '../../pagination.js';

/** GET /v1/external_locations: every location, nearest the ZIP code's centroid first, by pages. */
export const listExternalLocations: Handlers['listExternalLocations'] = async ({ query }, ctx) => {
  const zip = query.zip.slice(0, 5);
  const scope = { owner: ownerOf(ctx), list: `external_locations:${zip}` };
  const offset = query.next_page_token === undefined ? 0 : Number(decodeCursor(scope, query.next_page_token, 'next_page_token').after);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidField('next_page_token', 'is not a valid page token');
  const limit = query.limit ?? 20;
  const { results, more } = await ctx.services.locationLookups.nearestToZip(zip, offset, limit);
  const last = results.at(-1);
  return { status: 200, body: { results, next_page_token: more && last ? encodeCursor(scope, { after: String(offset + limit), token: last.id }) : null } };
};
