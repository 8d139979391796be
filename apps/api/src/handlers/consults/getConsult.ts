import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const getConsult: Handlers['getConsult'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.consults.get(ownerOf(ctx), path.consult_id) };
};
