import { presentAutoRefillList } from '../../auto-refill/auto-refill-presenter.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const listAutoRefills: Handlers['listAutoRefills'] = async ({ query }, ctx) => {
  return { status: 200, body: presentAutoRefillList(await ctx.services.autoRefills.list(ownerOf(ctx), query)) };
};
