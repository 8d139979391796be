import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { Transactor } from '../db/transactor.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { nowIso } from '../tokens.js';
import type { WebhookEndpointService } from '../webhook-endpoints/webhook-endpoint-service.js';
import type { WebhookDeliveryRepository } from './webhook-delivery-repository.js';

type Redelivery = components['schemas']['WebhookRedelivery'];

/** The most events one bulk redelivery schedules (the spec's `WebhookRedelivery.scheduled` maximum). */
export const MAX_REDELIVERIES = 10_000;

/**
 * Delivers events again on the customer's request, through the normal path: a redelivered
 * event is a fresh delivery (`pending`, 0 attempts, the whole retry schedule, the same
 * `webhook-id` and body), which the delivery workers take like any other; its origin
 * request id stays the request that caused the event.
 */
export class WebhookRedeliveryService {
  constructor(
    private readonly repository: WebhookDeliveryRepository,
    private readonly transactor: Transactor,
    private readonly endpoints: WebhookEndpointService,
    /** Wakes the delivery worker once the events are scheduled. */
    private readonly scheduled: () => void,
    /** The most events one bulk redelivery schedules. */
    private readonly limit = MAX_REDELIVERIES,
  ) {}

  /** One event by its id (`webhook-id`), whatever became of it; another owner's answers 404. */
  async redeliver(owner: Owner, webhookId: string): Promise<Redelivery> {
    await this.assertEnabled(owner);
    const result = await this.transactor.run((trx) => this.repository.redeliver(owner, webhookId, nowIso(), trx));
    if (result === 'missing') throw notFound('Unable to find Webhook Event.');
    if (result === 'claimed') throw conflict('The event is being delivered now; redeliver it once this attempt has ended.');
    this.scheduled();
    return { scheduled: 1, has_more: false };
  }

  /** The owner's failed events since a time (an ISO 8601 date-time the spec has validated), at most `limit` of them, oldest first. */
  async redeliverFailed(owner: Owner, since: string): Promise<Redelivery> {
    const sinceSeconds = Math.floor(Date.parse(since) / 1000);
    // The spec's date-time format admits a leap second, which Date cannot read.
    if (!Number.isFinite(sinceSeconds)) throw invalidField('since', 'must be a valid date-time');
    await this.assertEnabled(owner);
    const scheduled = await this.transactor.run((trx) => this.repository.redeliverFailed(owner, sinceSeconds, this.limit, nowIso(), trx));
    if (scheduled > 0) this.scheduled();
    return { scheduled, has_more: await this.repository.hasFailed(owner, sinceSeconds) };
  }

  /** Redelivery needs an endpoint that takes deliveries: 404 without one, 409 while it is disabled. */
  private async assertEnabled(owner: Owner): Promise<void> {
    const endpoint = await this.endpoints.get(owner);
    if (endpoint.status === 'disabled') throw conflict('The webhook endpoint is disabled: enable it first (POST /v1/webhook_endpoint/enable).');
  }
}
