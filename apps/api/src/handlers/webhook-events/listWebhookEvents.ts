import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/webhook_events: List webhook events. Scaffolded by `pnpm generate`; replace the body. */
export const listWebhookEvents: Handlers['listWebhookEvents'] = async () => {
  throw notImplemented('listWebhookEvents');
};
