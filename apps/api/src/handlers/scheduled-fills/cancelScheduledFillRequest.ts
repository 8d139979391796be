import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const cancelScheduledFillRequest: Handlers['cancelScheduledFillRequest'] = async ({ path }, ctx) => {
  const action = await ctx.services.heldFills.cancel(ownerOf(ctx), path.id, ctx.requestId);
  return { status: 200, body: { id: action.id, status: 'CANCELLED' } };
};
