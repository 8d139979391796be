import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** PUT /v1/webhook_endpoint: Set the webhook endpoint. */
export const setWebhookEndpoint: Handlers['setWebhookEndpoint'] = async ({ body }, ctx) => {
  return { status: 200, body: await ctx.services.webhookEndpoints.set(ownerOf(ctx), body.url, ctx.requestId) };
};
