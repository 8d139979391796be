import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebhookConfig } from '../src/config.js';
import type { JobClaims } from '../src/db/job-claims.js';
import { WebhookDeliveryService } from '../src/webhook-deliveries/webhook-delivery-service.js';

/**
 * Every unit of work that records events asks delivery to look for them (notify). A look
 * that found nothing due spaces the next such look by at least 5 ms (ten times the look's
 * own time when longer): under a load of requests whose events no endpoint will receive,
 * each commit would otherwise cost a poll of the events table that finds nothing.
 */
const CONFIG = { timeoutMs: 1000, retryScheduleMs: [0, 60_000], concurrency: 4, endpointConcurrency: 2, pollMs: 1000 } as WebhookConfig;

/** The service over a claim that answers what `found` holds then, taking `tookMs` of the clock. */
function service(found: () => unknown[], tookMs = 0) {
  const claims: number[] = [];
  const jobs = {
    claim: async () => {
      claims.push(Date.now());
      if (tookMs) vi.advanceTimersByTime(tookMs);
      return found();
    },
  } as unknown as JobClaims;
  const endpoints = { target: async () => undefined };
  const outcomes = { write: async () => true };
  const delivery = new WebhookDeliveryService(jobs, outcomes as never, endpoints as never, CONFIG);
  let wakes = 0;
  delivery.onWake = () => wakes++;
  return { delivery, claims, wakes: () => wakes };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('looks asked for by recorded events', () => {
  it('come at once before any look', () => {
    const { delivery, wakes } = service(() => []);
    delivery.notify();
    vi.advanceTimersByTime(0);
    expect(wakes()).toBe(1);
  });

  it('wait 5 ms after a look that found nothing, however many ask meanwhile', async () => {
    const { delivery, wakes } = service(() => []);
    expect(await delivery.tick()).toBe(0);
    for (let i = 0; i < 20; i++) delivery.notify();
    vi.advanceTimersByTime(4);
    expect(wakes()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(wakes()).toBe(1);
  });

  it('wait ten times a slow look that found nothing', async () => {
    const { delivery, wakes } = service(() => [], 3);
    await delivery.tick();
    delivery.notify();
    vi.advanceTimersByTime(29);
    expect(wakes()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(wakes()).toBe(1);
  });

  it('come at once after a look that found events', async () => {
    const event = { id: 'evt_1', customer_id: 'cus_1', environment: 'sandbox', delivery_attempts: 0, created_at: new Date().toISOString(), payload: '{}' };
    let due: unknown[] = [event];
    const { delivery, wakes } = service(() => {
      const found = due;
      due = [];
      return found;
    });
    await delivery.tick();
    // Its delivery (no endpoint: failed, not attempted) ends and wakes the loop itself.
    await vi.runAllTimersAsync();
    const before = wakes();
    delivery.notify();
    vi.advanceTimersByTime(0);
    expect(wakes()).toBe(before + 1);
  });
});
