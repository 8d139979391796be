import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import { JobClaims, type GroupCap } from '../src/db/job-claims.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { recordEvents, startReceiver, TEST_SECRETS_KEY, type Receiver } from './support/webhook-receiver.js';

/**
 * One customer's receiver never answers; another customer's deliveries must not wait for it.
 * The delivery timeout is long (10 s), so a delivery slot held by the dead receiver stays held
 * for the whole measurement: if the dead endpoint could take every slot, the other customer's
 * events would wait at least that long.
 */
const TIMEOUT_MS = 10_000;
/** Events per measurement: the p99 is the second slowest of 200. */
const EVENTS = 200;

let t: TestApp;
let healthy: Receiver;
let dead: Receiver;
beforeAll(async () => {
  t = await startTestApp({
    SECRETS_KEY: TEST_SECRETS_KEY,
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_CONCURRENCY: '16',
    WEBHOOK_ENDPOINT_CONCURRENCY: '4',
    WEBHOOK_RETRY_SCHEDULE: '0,1s',
  });
  healthy = await startReceiver();
  dead = await startReceiver(() => 'hang');
});
afterAll(async () => {
  // The dead receiver goes first: its hanging deliveries then fail at once and the app stops quickly.
  await dead?.close();
  await healthy?.close();
  await t?.close();
});

/** A new customer whose sandbox endpoint is the receiver. */
async function subscribed(receiver: Receiver): Promise<Owner> {
  const customer = await t.customer();
  const { response } = await t.client(customer.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
  expect(response.status).toBe(200);
  return { customerId: customer.customer_id, environment: 'sandbox' };
}

/** Records `count` events of the owner at once; answers each one's delay from its commit to its arrival. */
async function deliveryDelays(owner: Owner, receiver: Receiver, count: number): Promise<number[]> {
  const before = receiver.received.length;
  const { ids, committedAt } = await recordEvents(t.database.handle.db, owner, count);
  t.app.services.webhookDelivery.notify();
  await receiver.waitFor(before + count, 60_000);
  const arrivals = new Map(receiver.received.slice(before).map((r) => [r.headers['webhook-id'] as string, r.at]));
  return ids.map((id) => arrivals.get(id)! - committedAt);
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(0.99 * sorted.length) - 1]!;
}

describe('fair delivery across endpoints', () => {
  it('a receiver that never answers delays only its own deliveries', async () => {
    const other = await subscribed(healthy);
    await deliveryDelays(other, healthy, 20); // warm-up, not measured
    const undisturbed = p99(await deliveryDelays(other, healthy, EVENTS));

    // More events than the process has delivery slots, all hanging at the dead receiver.
    const stuck = await subscribed(dead);
    await recordEvents(t.database.handle.db, stuck, 20);
    t.app.services.webhookDelivery.notify();
    await dead.waitFor(4);
    const disturbed = p99(await deliveryDelays(other, healthy, EVENTS));

    expect(disturbed, `p99 ${disturbed} ms with a dead receiver, ${undisturbed} ms without`).toBeLessThanOrEqual(2 * undisturbed);
    // The dead endpoint holds no more than its cap of this process's slots.
    expect(dead.received).toHaveLength(4);
  }, 120_000);
});

describe('a lane that stays full', () => {
  it('is looked past once, not at every wake-up, and another endpoint is still served', async () => {
    const other = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_ENDPOINT_CONCURRENCY: '2', WEBHOOK_RETRY_SCHEDULE: '0,1h' });
    const hanging = await startReceiver(() => 'hang');
    const answering = await startReceiver();
    const db = other.database.handle.db;
    const delivery = other.app.services.webhookDelivery;
    const looks = vi.spyOn(JobClaims.prototype, 'claim');
    try {
      const flooding = await other.customer();
      const flooded = { customerId: flooding.customer_id, environment: 'sandbox' as const };
      await other.app.services.webhookEndpoints.set(flooded, hanging.url, 'test');
      await recordEvents(db, flooded, 200);
      delivery.notify();
      // Its lane is full: two requests hang, two more events wait for them.
      await hanging.waitFor(2);
      const claimedAhead = () => db.selectFrom('events').select('id').where('locked_until', 'is not', null).execute();
      for (const deadline = Date.now() + 5000; (await claimedAhead()).length < 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));

      // Every recorded event wakes the worker; reading past the lane's 196 due events each time
      // would cost the process a scan per event recorded.
      looks.mockClear();
      for (let i = 0; i < 50; i++) await delivery.tick();
      const pastFullLooks = looks.mock.calls.filter(([jobs, , , cap]) => {
        const c = cap as GroupCap<'events'> | undefined;
        return jobs.table === 'events' && c !== undefined && c.pastFull !== false && [...c.held.values()].some((n) => n >= c.max);
      });
      expect(pastFullLooks.length).toBeLessThanOrEqual(2);

      // Another endpoint's events still go out at once.
      const served = await other.customer();
      const owner = { customerId: served.customer_id, environment: 'sandbox' as const };
      await other.app.services.webhookEndpoints.set(owner, answering.url, 'test');
      const started = Date.now();
      await recordEvents(db, owner, 5);
      delivery.notify();
      await answering.waitFor(5, 5000);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(hanging.received).toHaveLength(2);
    } finally {
      looks.mockRestore();
      await hanging.close();
      await answering.close();
      await other.close();
    }
  }, 30_000);
});

describe('stopping the process', () => {
  it('gives back the events it claimed ahead and had not started, so they are not left waiting for their claim to expire', async () => {
    const other = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_ENDPOINT_CONCURRENCY: '2', WEBHOOK_RETRY_SCHEDULE: '0,1h' });
    const hanging = await startReceiver(() => 'hang');
    const db = other.database.handle.db;
    try {
      const customer = await other.customer();
      await other.app.services.webhookEndpoints.set({ customerId: customer.customer_id, environment: 'sandbox' }, hanging.url, 'test');
      await recordEvents(db, { customerId: customer.customer_id, environment: 'sandbox' }, 10);
      other.app.services.webhookDelivery.notify();
      await hanging.waitFor(2);
      // Two requests run; two more events are claimed ahead, waiting for them.
      const claimed = () => db.selectFrom('events').select('id').where('locked_until', 'is not', null).execute();
      for (const deadline = Date.now() + 5000; (await claimed()).length < 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
      expect(await claimed()).toHaveLength(4);

      await other.app.fastify.close();
      const rows = await db.selectFrom('events').select(['delivery_status', 'locked_until']).execute();
      expect(rows.filter((r) => r.locked_until !== null)).toEqual([]);
      expect(rows.filter((r) => r.delivery_status === 'retrying')).toHaveLength(2);
      expect(rows.filter((r) => r.delivery_status === 'pending')).toHaveLength(8);
      expect(hanging.received).toHaveLength(2);
    } finally {
      await hanging.close();
      await other.database.dispose();
    }
  });
});
