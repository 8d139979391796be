import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

export const listWebhookEvents: Handlers['listWebhookEvents'] = async ({ query }, ctx) => {
  return { status: 200, body: await ctx.services.webhookEvents.list(ownerOf(ctx), query ?? {}) };
};
