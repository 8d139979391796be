import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const listConsults: Handlers['listConsults'] = async ({ query }, ctx) => {
  return { status: 200, body: await ctx.services.consults.list(ownerOf(ctx), query) };
};
