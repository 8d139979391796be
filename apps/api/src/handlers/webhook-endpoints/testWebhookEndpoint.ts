import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/webhook_endpoint/test: Send a test request to the endpoint. */
export const testWebhookEndpoint: Handlers['testWebhookEndpoint'] = async (input, ctx) => {
  const result = await ctx.services.webhookEndpoints.test(ownerOf(ctx), input.body?.callback_type);
  return { status: 200, body: { delivered: result.delivered, status_code: result.statusCode, webhook_id: result.webhookId, callback_type: result.callbackType } };
};
