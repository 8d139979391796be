import { presentAutoRefillDone } from '../../auto-refill/auto-refill-presenter.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const skipAutoRefill: Handlers['skipAutoRefill'] = async ({ path }, ctx) => {
  return { status: 200, body: presentAutoRefillDone(await ctx.services.autoRefills.skip(ownerOf(ctx), path.prescription_token, ctx.requestId)) };
};
