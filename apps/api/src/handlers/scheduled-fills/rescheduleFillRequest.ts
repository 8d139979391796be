import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';
import { presentSchedule } from '../../scheduled-fills/scheduled-action-presenter.js';

export const rescheduleFillRequest: Handlers['rescheduleFillRequest'] = async ({ path, body }, ctx) => {
  return { status: 200, body: presentSchedule(await ctx.services.heldFills.reschedule(ownerOf(ctx), path.id, body.submit_on, ctx.requestId)) };
};
