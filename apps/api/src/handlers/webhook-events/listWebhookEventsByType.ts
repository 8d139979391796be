import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

export const listWebhookEventsByType: Handlers['listWebhookEventsByType'] = async ({ path, query }, ctx) => {
  return { status: 200, body: await ctx.services.webhookEvents.listByType(ownerOf(ctx), path.webhook_type, query ?? {}) };
};
