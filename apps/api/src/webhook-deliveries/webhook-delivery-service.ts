import type { FastifyBaseLogger } from 'fastify';
import type { WebhookConfig } from '../config.js';
import type { SqlCondition } from '../events/event-outbox.js';
import { groupKey, type JobClaims } from '../db/job-claims.js';
import type { Owner } from '../auth/principal.js';
import { ownerOfRow } from '../db/ownership.js';
import type { EndpointAttempt } from '../webhook-endpoints/endpoint-health.js';
import type { DeliveryTarget, WebhookEndpointService } from '../webhook-endpoints/webhook-endpoint-service.js';
import type { DeliveryAttemptRow } from './delivery-attempt-repository.js';
import { attemptRow } from './delivery-attempts.js';
import type { DeliveryOutcomes } from './delivery-outcomes.js';
import { EndpointLanes } from './endpoint-lanes.js';
import { DELIVERIES, ENDPOINT_COLUMNS, type ClaimedEvent, type DeliveryOutcome } from './webhook-delivery-repository.js';
import { now as clockNow, nowMs } from '../clock.js';

/** How long past its longest possible wait and request a claim is kept before another worker may take the event again. */
const LOCK_MARGIN_MS = 30_000;
/**
 * After a claim found nothing due outside the lanes it left full, the next claim waits this
 * many times what that one took (at least MIN_LOOK_AGAIN_MS), unless one of those lanes has
 * room again: finding another endpoint's events means reading past the full lanes' whole
 * backlog, and every recorded event wakes the worker.
 */
const LOOK_AGAIN_FACTOR = 10;
const MIN_LOOK_AGAIN_MS = 5;

/** What came of a claimed event: the outcome to record, and the attempt (with its record) when one was made. */
interface Attempted {
  outcome: DeliveryOutcome;
  attempt?: EndpointAttempt;
  record?: DeliveryAttemptRow;
}

/** A claimed event with its endpoint, read once per claim (a rotation applies from the next claim on). */
interface Claimed {
  event: ClaimedEvent;
  target: Promise<DeliveryTarget | undefined>;
}

/**
 * Delivers recorded events to their environment's endpoint: at least once, signed, with
 * the configured retry schedule. State lives in the events table (the outbox), so a
 * restart resumes where it stopped (claims of a stopped process expire and are taken
 * again). Deliveries are fair across endpoints: at most `endpointConcurrency` requests to
 * one endpoint and `concurrency` in all run at once per process (`EndpointLanes`), so a
 * slow or dead endpoint holds only its own share of the slots and a freed slot is refilled
 * at once, from whichever endpoints have due events. They run in no particular order
 * across or within customers: receivers order by the envelope's `timestamp` and drop
 * duplicates by `webhook-id`. Events of a disabled endpoint are not attempted: they end
 * `failed`, to be redelivered. An event due when it is recorded whose environment has no
 * enabled endpoint then is recorded `failed` (`attemptingCondition`), and no worker claims it.
 */
export class WebhookDeliveryService {
  /** Deliveries started and not finished (until their outcome is written). */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lanes: EndpointLanes<Claimed>;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;
  /**
   * After a claim that found nothing due, a look asked for by recorded events waits until
   * then (clock ms; as LOOK_AGAIN_FACTOR spaces looks past full lanes). Under a load of
   * requests whose events no endpoint will receive (recorded `failed`: attemptingCondition),
   * every commit would otherwise ask for a look that finds nothing; an event due meanwhile
   * waits those few milliseconds.
   */
  private quietUntil = 0;
  /** What the last claim found: nothing due outside these lanes (full after it), until `until` (clock ms). */
  private onlyDue: { lanes: string[]; until: number } | undefined;
  /** Set by the worker loop: runs the next tick now. */
  onWake: () => void = () => {};

  constructor(
    private readonly jobs: JobClaims,
    /** Outcomes are written through it, many in one commit. */
    private readonly outcomes: DeliveryOutcomes,
    private readonly endpoints: WebhookEndpointService,
    private readonly config: WebhookConfig,
    /** Set by the worker (the app's logger); logs ids, outcomes and the originating request id, never payloads. */
    private readonly log?: FastifyBaseLogger,
  ) {
    this.lanes = new EndpointLanes(config.endpointConcurrency, config.concurrency);
  }

  /**
   * The condition under which an event of the owner, recorded now, is to be attempted
   * (recorded `pending`), for the statement that records it; undefined: always. One whose
   * first attempt waits (the retry schedule's first delay) is judged when due; one due at
   * once, only when the owner's endpoint is there and enabled as that statement sees it.
   * The others are recorded `failed` with no attempt, as a worker claiming them a moment
   * later would mark them: an endpoint set after the event's statement does not receive it
   * (redelivery does).
   */
  attemptingCondition(owner: Owner): SqlCondition | undefined {
    if (this.config.retryScheduleMs[0]! > 0) return undefined;
    return this.endpoints.acceptingCondition(owner);
  }

  /** New events were recorded or rescheduled: look for them soon (after their unit of work commits; spaced after a claim that found nothing). */
  notify(): void {
    this.wakeIn(this.quietUntil - nowMs());
  }

  /**
   * One pass of the worker: claims due events into the lanes, as many as they have room for
   * (an endpoint's lane is refilled once its waiting events have started), and starts those
   * that have a free request slot. Answers how many it claimed when that filled the lanes
   * (more may be due); 0 otherwise, so the loop sleeps until a request ends, an event is
   * recorded or a retry falls due.
   */
  async tick(): Promise<number> {
    while (this.lanes.size >= this.lanes.capacity && this.inFlight.size > 0) await Promise.race(this.inFlight);
    const room = this.lanes.capacity - this.lanes.size;
    const startedAt = nowMs();
    const recent = this.onlyDue && startedAt < this.onlyDue.until ? this.onlyDue : undefined;
    // Past the full lanes only when the last look is not recent: that look reads their backlog.
    const cap = { columns: ENDPOINT_COLUMNS, max: this.lanes.laneCapacity, held: this.lanes.claimView(), pastFull: !recent };
    if (recent && recent.lanes.every((lane) => (cap.held.get(lane) ?? 0) >= cap.max)) {
      // Those lanes are still full, and nothing else was due a moment ago.
      this.wakeIn(recent.until - startedAt);
      return 0;
    }
    // A claimed event may wait for one request of its endpoint before its own: its claim covers both.
    const leaseMs = 2 * this.config.timeoutMs + LOCK_MARGIN_MS;
    const claimed = (await this.jobs.claim(DELIVERIES, room, leaseMs, cap)) as ClaimedEvent[];
    const claimedAt = nowMs();
    this.quietUntil = claimed.length === 0 ? claimedAt + Math.max(MIN_LOOK_AGAIN_MS, LOOK_AGAIN_FACTOR * (claimedAt - startedAt)) : 0;
    const targets = new Map<string, Promise<DeliveryTarget | undefined>>();
    for (const event of claimed) {
      const endpoint = groupKey(ENDPOINT_COLUMNS, event);
      if (!targets.has(endpoint)) targets.set(endpoint, this.endpoints.target(ownerOfRow(event)));
      this.lanes.add(endpoint, { event, target: targets.get(endpoint)! });
    }
    if (!recent) {
      this.onlyDue = undefined;
      if (claimed.length < room) {
        // Nothing more is due outside the lanes now full: remember them, if any, for a while.
        const full = [...this.lanes.claimView()].flatMap(([lane, holds]) => (holds >= cap.max ? [lane] : []));
        if (full.length > 0) this.onlyDue = { lanes: full, until: claimedAt + Math.max(MIN_LOOK_AGAIN_MS, LOOK_AGAIN_FACTOR * (claimedAt - startedAt)) };
      }
    }
    this.startWaiting();
    return claimed.length > 0 && claimed.length === room ? claimed.length : 0;
  }

  /** Gives back the claims of events that have not started, then waits for the deliveries in progress (on stop). */
  async drain(): Promise<void> {
    clearTimeout(this.wakeTimer);
    this.wakeAt = Infinity;
    // Released as they were claimed, so another process (or the next start) takes them at once.
    const released = this.lanes.takeWaiting().map(({ event }) => this.outcomes.write(event, unchanged(event)));
    await Promise.allSettled(released);
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** Starts every waiting event that has a free request slot. */
  private startWaiting(): void {
    for (const { endpoint, item } of this.lanes.startable()) {
      let running = true;
      const requestEnded = () => {
        if (!running) return;
        running = false;
        this.lanes.requestEnded(endpoint);
        this.startWaiting();
      };
      const delivery = this.attempt(item.event, item.target)
        .then(({ outcome, attempt, record }) => {
          // The request is over: its slot goes to the next waiting event while the outcome is written.
          requestEnded();
          return this.finish(item.event, outcome, attempt, record);
        })
        .catch((error: unknown) =>
          this.log?.error({ webhook_id: item.event.id, reqId: item.event.origin_request_id, err: { message: (error as Error)?.message } }, 'webhook delivery failed'),
        )
        .finally(() => {
          requestEnded();
          this.lanes.finished(endpoint);
          this.inFlight.delete(delivery);
          this.wakeIn(0);
        });
      this.inFlight.add(delivery);
    }
  }

  private async attempt(event: ClaimedEvent, endpoint: Promise<DeliveryTarget | undefined>): Promise<Attempted> {
    const owner = ownerOfRow(event);
    const schedule = this.config.retryScheduleMs;
    const attempts = Number(event.delivery_attempts);
    // The first attempt waits the schedule's first delay after the event was recorded.
    if (attempts === 0 && schedule[0]! > 0) {
      const firstAt = Date.parse(event.created_at) + schedule[0]!;
      if (firstAt > nowMs()) {
        return { outcome: { delivery_status: 'pending', delivery_status_code: null, delivery_attempts: 0, last_attempt_at: null, next_attempt_at: new Date(firstAt).toISOString() } };
      }
    }
    const target = await endpoint;
    if (!target) {
      // No endpoint for the environment when the event is due: not delivered, 0 attempts.
      return { outcome: { delivery_status: 'failed', delivery_status_code: null, delivery_attempts: 0, last_attempt_at: null, next_attempt_at: null } };
    }
    if (target.disabled) {
      // Not attempted: failed with the attempts made so far, until redelivered.
      this.log?.debug({ webhook_id: event.id, reqId: event.origin_request_id }, 'webhook event not attempted: its endpoint is disabled');
      return {
        outcome: { delivery_status: 'failed', delivery_status_code: event.delivery_status_code, delivery_attempts: attempts, last_attempt_at: event.last_attempt_at, next_attempt_at: null },
      };
    }
    const startedMs = performance.now();
    const result = await this.endpoints.send(owner, target, event.id, event.payload);
    const durationMs = performance.now() - startedMs;
    const done = attempts + 1;
    const attemptedAt = clockNow().toISOString();
    const attempted = { delivery_status_code: result.statusCode, delivery_attempts: done, last_attempt_at: attemptedAt };
    let outcome: DeliveryOutcome;
    if (result.delivered) {
      outcome = { delivery_status: 'delivered', ...attempted, next_attempt_at: null };
    } else if (done < schedule.length) {
      outcome = { delivery_status: 'retrying', ...attempted, next_attempt_at: new Date(Date.parse(attemptedAt) + schedule[done]!).toISOString() };
    } else {
      outcome = { delivery_status: 'failed', ...attempted, next_attempt_at: null };
    }
    if (!result.delivered) {
      this.log?.warn(
        { webhook_id: event.id, reqId: event.origin_request_id, attempt: done, status_code: result.statusCode, reason: result.error, next: outcome.delivery_status },
        'webhook attempt failed',
      );
    }
    const record = attemptRow({ owner, eventId: event.id, attempt: done, attemptedAt, durationMs, result });
    return { outcome, attempt: { succeeded: result.delivered, at: attemptedAt }, record };
  }

  private async finish(event: ClaimedEvent, outcome: DeliveryOutcome, attempt?: EndpointAttempt, record?: DeliveryAttemptRow): Promise<void> {
    const kept = await this.outcomes.write(event, outcome, attempt, record);
    if (!kept) this.log?.warn({ webhook_id: event.id, reqId: event.origin_request_id }, 'webhook claim expired before the attempt was recorded');
    if (outcome.next_attempt_at) this.wakeIn(Date.parse(outcome.next_attempt_at) - nowMs());
  }

  /** Pokes the loop after `ms` (only when sooner than the poll and any earlier wake-up). */
  private wakeIn(ms: number): void {
    const delay = Math.max(0, ms);
    if (delay >= this.config.pollMs) return;
    const at = nowMs() + delay;
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

/** The outcome that leaves an event as it was claimed: writing it only releases the claim. */
function unchanged(event: ClaimedEvent): DeliveryOutcome {
  return {
    delivery_status: event.delivery_status as DeliveryOutcome['delivery_status'],
    delivery_status_code: event.delivery_status_code,
    delivery_attempts: event.delivery_attempts,
    last_attempt_at: event.last_attempt_at,
    next_attempt_at: event.next_attempt_at,
  };
}
