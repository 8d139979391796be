import { presentAutoRefillDone } from '../../auto-refill/auto-refill-presenter.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const cancelAutoRefill: Handlers['cancelAutoRefill'] = async ({ path }, ctx) => {
  await ctx.services.autoRefills.cancel(ownerOf(ctx), path.prescription_token, ctx.requestId);
  return { status: 200, body: presentAutoRefillDone() };
};
