import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const deleteAccount: Handlers['deleteAccount'] = async ({ path }, ctx) => {
  await ctx.services.accounts.delete(ownerOf(ctx), path.accountId, ctx.requestId);
  return { status: 204, body: undefined };
};
