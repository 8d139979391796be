import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const simulateConsult: Handlers['simulateConsult'] = async ({ path, body }, ctx) => {
  return { status: 200, body: await ctx.services.consults.simulate(ownerOf(ctx), path.consult_id, body.status, body.notes, ctx.requestId) };
};
