import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const deleteConsult: Handlers['deleteConsult'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.consults.cancel(ownerOf(ctx), path.consult_id, ctx.requestId) };
};
