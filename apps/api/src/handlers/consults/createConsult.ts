import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const createConsult: Handlers['createConsult'] = async ({ body }, ctx) => {
  return { status: 200, body: await ctx.services.consults.create(ownerOf(ctx), body, ctx.requestId) };
};
