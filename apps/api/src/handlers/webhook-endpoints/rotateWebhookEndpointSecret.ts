import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/webhook_endpoint/rotate_secret: Rotate the signing secret. */
export const rotateWebhookEndpointSecret: Handlers['rotateWebhookEndpointSecret'] = async (_input, ctx) => {
  return { status: 200, body: await ctx.services.webhookEndpoints.rotateSecret(ownerOf(ctx), ctx.requestId) };
};
