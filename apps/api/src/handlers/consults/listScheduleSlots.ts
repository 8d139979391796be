import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const listScheduleSlots: Handlers['listScheduleSlots'] = async ({ query }, ctx) => {
  return { status: 200, body: { availabilities: await ctx.services.consults.schedule(ownerOf(ctx).environment, query) } };
};
