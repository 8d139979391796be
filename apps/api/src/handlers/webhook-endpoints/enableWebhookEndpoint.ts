import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/webhook_endpoint/enable: Enable the endpoint again. */
export const enableWebhookEndpoint: Handlers['enableWebhookEndpoint'] = async (_input, ctx) => {
  return { status: 200, body: await ctx.services.webhookEndpoints.enable(ownerOf(ctx), ctx.requestId) };
};
