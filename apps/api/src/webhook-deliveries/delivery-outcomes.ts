import type { FastifyBaseLogger } from 'fastify';
import { ownerOfRow } from '../db/ownership.js';
import type { Transactor } from '../db/transactor.js';
import type { DisabledEndpoint, EndpointAttempt, WebhookEndpointHealth } from '../webhook-endpoints/endpoint-health.js';
import type { DeliveryAttemptRepository, DeliveryAttemptRow } from './delivery-attempt-repository.js';
import type { ClaimedEvent, DeliveryOutcome, WebhookDeliveryRepository } from './webhook-delivery-repository.js';

interface Waiting {
  event: ClaimedEvent;
  outcome: DeliveryOutcome;
  /** The attempt made, when one was (its endpoint's health counts it). */
  attempt: EndpointAttempt | undefined;
  /** The attempt's record (`webhook_delivery_attempts`), when one was made. */
  record: DeliveryAttemptRow | undefined;
  done: (kept: boolean) => void;
  fail: (error: unknown) => void;
}

/**
 * Writes delivery outcomes together: those waiting go in one unit of work (one commit, which
 * the embedded database flushes once), with the attempts they count against their endpoints'
 * failure streaks and their records (one row per attempt, even when the claim had expired:
 * the request was made); those arriving meanwhile go in the next.
 */
export class DeliveryOutcomes {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(
    private readonly repository: WebhookDeliveryRepository,
    private readonly transactor: Transactor,
    private readonly health: WebhookEndpointHealth,
    private readonly attempts: DeliveryAttemptRepository,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** Records an outcome and releases the event's claim; answers false when the claim had expired (the outcome is not kept). */
  write(event: ClaimedEvent, outcome: DeliveryOutcome, attempt?: EndpointAttempt, record?: DeliveryAttemptRow): Promise<boolean> {
    return new Promise<boolean>((done, fail) => {
      this.waiting.push({ event, outcome, attempt, record, done, fail });
      if (!this.writing) void this.writeWaiting();
    });
  }

  private async writeWaiting(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length) {
        const batch = this.waiting.splice(0, 256);
        try {
          const { kept, disabled } = await this.transactor.run(async (trx) => {
            const kept = await this.repository.finishAll(
              batch.map(({ event, outcome }) => ({ id: event.id, claim: event.locked_until, outcome })),
              trx,
            );
            await this.attempts.insert(batch.flatMap(({ record }) => (record ? [record] : [])), trx);
            const disabled: DisabledEndpoint[] = [];
            for (const [owner, attempts] of attemptsByEndpoint(batch)) {
              const notice = await this.health.record(owner, attempts, trx);
              if (notice) disabled.push(notice);
            }
            return { kept, disabled };
          });
          batch.forEach((item, i) => item.done(kept[i]!));
          for (const notice of disabled) {
            this.log?.warn(
              { customer_id: notice.owner.customerId, environment: notice.owner.environment, failures: notice.failures, failing_since: notice.failingSince },
              'webhook endpoint disabled: every delivery attempt failed; its events are not delivered until it is enabled again',
            );
          }
        } catch (error) {
          // Nothing was written: the claims expire and the events are attempted again.
          batch.forEach((item) => item.fail(error));
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

/** The batch's attempts per endpoint (one per customer and environment), in the order they ended. */
function attemptsByEndpoint(batch: Waiting[]) {
  const byEndpoint = new Map<string, [ReturnType<typeof ownerOfRow>, EndpointAttempt[]]>();
  for (const { event, attempt } of batch) {
    if (!attempt) continue;
    const key = `${event.customer_id}:${event.environment}`;
    if (!byEndpoint.has(key)) byEndpoint.set(key, [ownerOfRow(event), []]);
    byEndpoint.get(key)![1].push(attempt);
  }
  return byEndpoint.values();
}
