import { presentAutoRefillCreated } from '../../auto-refill/auto-refill-presenter.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const createAutoRefill: Handlers['createAutoRefill'] = async ({ path, body }, ctx) => {
  return { status: 200, body: presentAutoRefillCreated(await ctx.services.autoRefills.create(ownerOf(ctx), path.prescription_token, body, ctx.requestId)) };
};
