import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/webhook_events/redeliver: Redeliver failed events since a time. */
export const redeliverWebhookEvents: Handlers['redeliverWebhookEvents'] = async ({ body }, ctx) => {
  return { status: 200, body: await ctx.services.webhookRedelivery.redeliverFailed(ownerOf(ctx), body.since) };
};
