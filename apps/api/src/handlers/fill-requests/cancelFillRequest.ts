import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/cancel_request: cancels a fill request, whole or item by item (fill-requests/fill-cancellation.ts). */
export const cancelFillRequest: Handlers['cancelFillRequest'] = async ({ body }, ctx) => {
  const receipt = await ctx.services.fillCancellation.cancel(ownerOf(ctx), body, ctx.requestId);
  return { status: 200, body: receipt };
};
