import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';
import { presentSchedule } from '../../scheduled-fills/scheduled-action-presenter.js';

export const scheduleFillRequest: Handlers['scheduleFillRequest'] = async ({ body }, ctx) => {
  return { status: 200, body: presentSchedule(await ctx.services.heldFills.schedule(ownerOf(ctx), body, ctx.requestId)) };
};
