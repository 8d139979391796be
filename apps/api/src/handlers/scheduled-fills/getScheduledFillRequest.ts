import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';
import { presentScheduledFillRequest } from '../../scheduled-fills/scheduled-action-presenter.js';

export const getScheduledFillRequest: Handlers['getScheduledFillRequest'] = async ({ query }, ctx) => {
  return { status: 200, body: presentScheduledFillRequest(await ctx.services.heldFills.get(ownerOf(ctx), query)) };
};
