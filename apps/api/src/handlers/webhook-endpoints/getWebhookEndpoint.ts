import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/webhook_endpoint: Read the webhook endpoint. */
export const getWebhookEndpoint: Handlers['getWebhookEndpoint'] = async (_input, ctx) => {
  return { status: 200, body: await ctx.services.webhookEndpoints.get(ownerOf(ctx)) };
};
