import type { components } from '@pharmacy/contract';
import type { FeedEventRow } from './webhook-event-repository.js';

type Schemas = components['schemas'];

/** Delivery states after which no attempt is scheduled. */
const SETTLED = new Set(['delivered', 'failed']);

/** One listed event: the stored envelope exactly as delivered, and how its delivery went. */
export function presentFeedEvent(row: FeedEventRow): Schemas['WebhookEventListItem'] {
  return {
    payload: JSON.parse(row.payload) as Schemas['WebhookEvent'],
    delivery_data: {
      status: row.delivery_status as Schemas['WebhookDeliveryData']['status'],
      status_code: row.delivery_status_code,
      webhook_id: row.id,
      attempts: row.delivery_attempts,
      last_attempt_at: row.last_attempt_at,
      next_attempt_at: SETTLED.has(row.delivery_status) ? null : row.next_attempt_at,
    },
  };
}
