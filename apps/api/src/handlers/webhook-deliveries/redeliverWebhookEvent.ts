import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/webhook_events/{webhook_id}/redeliver: Redeliver one event. */
export const redeliverWebhookEvent: Handlers['redeliverWebhookEvent'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.webhookRedelivery.redeliver(ownerOf(ctx), path.webhook_id) };
};
