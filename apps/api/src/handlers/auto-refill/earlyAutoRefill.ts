import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const earlyAutoRefill: Handlers['earlyAutoRefill'] = async ({ path }, ctx) => {
  const action = await ctx.services.autoRefills.early(ownerOf(ctx), path.prescription_token, ctx.requestId);
  return { status: 200, body: { code: 200, err: false, data: { sas_id: action.id } } };
};
