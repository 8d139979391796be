import { presentAutoRefill } from '../../auto-refill/auto-refill-presenter.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const getAutoRefill: Handlers['getAutoRefill'] = async ({ path }, ctx) => {
  return { status: 200, body: presentAutoRefill(await ctx.services.autoRefills.get(ownerOf(ctx), path.prescription_token)) };
};
