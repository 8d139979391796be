import type { FastifyBaseLogger } from 'fastify';
import type { Selectable } from 'kysely';
import type { WebhookConfig } from '../config.js';
import type { JobClaims } from '../db/job-claims.js';
import { ownerOfRow } from '../db/ownership.js';
import type { Transactor } from '../db/transactor.js';
import type { EventsTable } from '../events/event-tables.js';
import type { DeliveryTarget, WebhookEndpointService } from '../webhook-endpoints/webhook-endpoint-service.js';
import { DELIVERIES, type DeliveryOutcome, type WebhookDeliveryRepository } from './webhook-delivery-repository.js';

/** An event claimed for delivery: its row, with the claim (`locked_until`) that holds it. */
type ClaimedEvent = Selectable<EventsTable> & { locked_until: string };

/** How long past the request timeout a claim is kept before another worker may take the event again. */
const LOCK_MARGIN_MS = 30_000;

/**
 * Delivers recorded events to their environment's endpoint: at least once, signed, with
 * the configured retry schedule. State lives in the events table (the outbox), so a
 * restart resumes where it stopped (claims of a stopped process expire and are taken
 * again). Up to `concurrency` deliveries run at once per process, in no particular order
 * across or within customers: receivers order by the envelope's `timestamp` and drop
 * duplicates by `webhook-id`.
 */
export class WebhookDeliveryService {
  private readonly inFlight = new Set<Promise<void>>();
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;
  /** Outcomes waiting to be written: written together, in one unit of work (one commit). */
  private outcomes: { event: ClaimedEvent; outcome: DeliveryOutcome; done: (kept: boolean) => void; fail: (error: unknown) => void }[] = [];
  private writing = false;
  /** Set by the worker loop: runs the next tick now. */
  onWake: () => void = () => {};

  constructor(
    private readonly repository: WebhookDeliveryRepository,
    private readonly jobs: JobClaims,
    /** Outcomes are written through it, so the embedded database commits many with one flush. */
    private readonly transactor: Transactor,
    private readonly endpoints: WebhookEndpointService,
    private readonly config: WebhookConfig,
    /** Set by the worker (the app's logger); logs ids, outcomes and the originating request id, never payloads. */
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** New events were recorded: look for them soon (after their unit of work commits). */
  notify(): void {
    this.wakeIn(0);
  }

  /**
   * One pass of the worker: claims as many due events as there are free slots and starts
   * delivering them; answers how many it claimed (0 lets the loop sleep). When more than
   * half the slots are busy, waits for deliveries to finish first.
   */
  async tick(): Promise<number> {
    // Refill when at least half the slots are free, so claims (one write each) come in batches.
    while (this.inFlight.size > 0 && this.inFlight.size > this.config.concurrency / 2) await Promise.race(this.inFlight);
    const free = this.config.concurrency - this.inFlight.size;
    const claimed = (await this.jobs.claim(DELIVERIES, free, this.config.timeoutMs + LOCK_MARGIN_MS)) as ClaimedEvent[];
    // One endpoint read per owner and batch (a rotation applies from the next batch on).
    const targets = new Map<string, Promise<DeliveryTarget | undefined>>();
    for (const event of claimed) {
      const delivery = this.deliver(event, targets)
        .catch((error: unknown) =>
          this.log?.error({ webhook_id: event.id, reqId: event.origin_request_id, err: { message: (error as Error)?.message } }, 'webhook delivery failed'),
        )
        .finally(() => {
          this.inFlight.delete(delivery);
          this.wakeIn(0);
        });
      this.inFlight.add(delivery);
    }
    return claimed.length;
  }

  /** Waits for the deliveries in progress (on stop). */
  async drain(): Promise<void> {
    clearTimeout(this.wakeTimer);
    this.wakeAt = Infinity;
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private async deliver(event: ClaimedEvent, targets: Map<string, Promise<DeliveryTarget | undefined>>): Promise<void> {
    const owner = ownerOfRow(event);
    const schedule = this.config.retryScheduleMs;
    const attempts = Number(event.delivery_attempts);
    // The first attempt waits the schedule's first delay after the event was recorded.
    if (attempts === 0 && schedule[0]! > 0) {
      const firstAt = Date.parse(event.created_at) + schedule[0]!;
      if (firstAt > Date.now()) {
        await this.finish(event, { delivery_status: 'pending', delivery_status_code: null, delivery_attempts: 0, last_attempt_at: null, next_attempt_at: new Date(firstAt).toISOString() });
        return;
      }
    }
    const ownerKey = `${owner.customerId}:${owner.environment}`;
    if (!targets.has(ownerKey)) targets.set(ownerKey, this.endpoints.target(owner));
    const target = await targets.get(ownerKey)!;
    if (!target) {
      // No endpoint for the environment when the event is due: not delivered, 0 attempts.
      await this.finish(event, { delivery_status: 'failed', delivery_status_code: null, delivery_attempts: 0, last_attempt_at: null, next_attempt_at: null });
      return;
    }
    const result = await this.endpoints.send(owner, target, event.id, event.payload);
    const done = attempts + 1;
    const attemptedAt = new Date();
    let outcome: DeliveryOutcome;
    if (result.delivered) {
      outcome = { delivery_status: 'delivered', delivery_status_code: result.statusCode, delivery_attempts: done, last_attempt_at: attemptedAt.toISOString(), next_attempt_at: null };
    } else if (done < schedule.length) {
      const next = attemptedAt.getTime() + schedule[done]!;
      outcome = { delivery_status: 'retrying', delivery_status_code: result.statusCode, delivery_attempts: done, last_attempt_at: attemptedAt.toISOString(), next_attempt_at: new Date(next).toISOString() };
    } else {
      outcome = { delivery_status: 'failed', delivery_status_code: result.statusCode, delivery_attempts: done, last_attempt_at: attemptedAt.toISOString(), next_attempt_at: null };
    }
    if (!result.delivered) {
      this.log?.warn(
        { webhook_id: event.id, reqId: event.origin_request_id, attempt: done, status_code: result.statusCode, reason: result.error, next: outcome.delivery_status },
        'webhook attempt failed',
      );
    }
    await this.finish(event, outcome);
  }

  private async finish(event: ClaimedEvent, outcome: DeliveryOutcome): Promise<void> {
    const kept = await new Promise<boolean>((done, fail) => {
      this.outcomes.push({ event, outcome, done, fail });
      if (!this.writing) void this.writeOutcomes();
    });
    if (!kept) this.log?.warn({ webhook_id: event.id, reqId: event.origin_request_id }, 'webhook claim expired before the attempt was recorded');
    if (outcome.next_attempt_at) this.wakeIn(Date.parse(outcome.next_attempt_at) - Date.now());
  }

  /** Writes the waiting outcomes in one unit of work; those arriving meanwhile go in the next. */
  private async writeOutcomes(): Promise<void> {
    this.writing = true;
    try {
      while (this.outcomes.length) {
        const batch = this.outcomes.splice(0, 256);
        try {
          const kept = await this.transactor.run(async (trx) => {
            const results: boolean[] = [];
            for (const { event, outcome } of batch) results.push(await this.repository.finish(event.id, event.locked_until, outcome, trx));
            return results;
          });
          batch.forEach((item, i) => item.done(kept[i]!));
        } catch (error) {
          // Nothing was written: the claims expire and the events are attempted again.
          batch.forEach((item) => item.fail(error));
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** Pokes the loop after `ms` (only when sooner than the poll and any earlier wake-up). */
  private wakeIn(ms: number): void {
    const delay = Math.max(0, ms);
    if (delay >= this.config.pollMs) return;
    const at = Date.now() + delay;
    if (at >= this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeAt = Infinity;
      this.onWake();
    }, delay);
    this.wakeTimer.unref();
  }
}
