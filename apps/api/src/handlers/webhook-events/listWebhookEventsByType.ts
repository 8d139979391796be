import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/webhook_events/{webhook_type}: List webhook events of one type. Scaffolded by `pnpm generate`; replace the body. */
export const listWebhookEventsByType: Handlers['listWebhookEventsByType'] = async () => {
  throw notImplemented('listWebhookEventsByType');
};
