import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '../src/clock.js';
import type { Owner } from '../src/auth/principal.js';
import { nowIso } from '../src/tokens.js';
import { WebhookEndpointRepository } from '../src/webhook-endpoints/webhook-endpoint-repository.js';
import { notifyRx } from './support/webhook-event-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { deliveryOf, startReceiver, TEST_SECRETS_KEY, waitForDelivery, type Receiver } from './support/webhook-receiver.js';

/**
 * An event due when it is recorded is judged in the unit of work that records it: with no
 * enabled endpoint for its environment, as the event's insert sees the endpoints' table, it
 * is recorded `failed` with no attempt (what a worker would mark it a moment later) and no
 * worker claims it; with one it is recorded `pending` and delivered. An event whose first attempt waits (the retry
 * schedule's first delay) is recorded `pending` and judged when due.
 */
let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_POLL_MS: '50' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const sandboxOf = (customerId: string): Owner => ({ customerId, environment: 'sandbox' });

/** Records events of the owners through the service's units of work (as every state change does); answers their ids. */
async function record(app: TestApp, ...owners: Owner[]): Promise<string[]> {
  const { units } = app.app.services;
  return units.run(`req_judged${owners.length}`, async (uow) => {
    for (const [n, owner] of owners.entries()) await uow.emit(owner, notifyRx(n));
    return uow.events.map((event) => event.id);
  });
}

/** The event's delivery columns as stored right after its unit of work committed. */
const stored = async (app: TestApp, id: string) => deliveryOf(app.database.handle.db, id);

const FAILED_UNATTEMPTED = { delivery_status: 'failed', delivery_attempts: 0, delivery_status_code: null, last_attempt_at: null, next_attempt_at: null, locked_until: null };

describe('an event due when it is recorded', () => {
  it('is recorded failed with no attempt when its environment has no endpoint, and no worker claims it', async () => {
    const customer = await t.customer();
    const [id] = await record(t, sandboxOf(customer.customer_id));
    expect(await stored(t, id!)).toMatchObject(FAILED_UNATTEMPTED);
    // A worker's pass now leaves it as it was.
    await t.app.services.webhookDelivery.tick();
    expect(await stored(t, id!)).toMatchObject(FAILED_UNATTEMPTED);
    // An endpoint of the other environment is not its endpoint.
    await t.client(customer.production_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
    const [again] = await record(t, sandboxOf(customer.customer_id));
    expect(await stored(t, again!)).toMatchObject(FAILED_UNATTEMPTED);
  });

  it('is recorded pending and delivered when its endpoint is enabled', async () => {
    const customer = await t.customer();
    await t.client(customer.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
    const [id] = await record(t, sandboxOf(customer.customer_id));
    expect(await waitForDelivery(t.database.handle.db, id!, 'delivered')).toMatchObject({ delivery_attempts: 1, delivery_status_code: 200 });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1);
  });

  it('is recorded failed with no attempt while its endpoint is disabled', async () => {
    const customer = await t.customer();
    const owner = sandboxOf(customer.customer_id);
    await t.client(customer.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
    const db = t.database.handle.db;
    expect(await new WebhookEndpointRepository(db).disable(owner, nowIso(), 'disabled by the test', db)).toBe(true);
    const [id] = await record(t, owner);
    expect(await stored(t, id!)).toMatchObject(FAILED_UNATTEMPTED);
  });

  it('gives each owner of a unit of work its own verdict', async () => {
    const [without, withEndpoint] = [await t.customer(), await t.customer()];
    await t.client(withEndpoint.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
    const a = sandboxOf(without.customer_id);
    const b = sandboxOf(withEndpoint.customer_id);
    const ids = await record(t, a, b, a, b, a);
    const statuses = await Promise.all(ids.map(async (id) => (await stored(t, id)).delivery_status));
    expect(statuses[0]).toBe('failed');
    expect(statuses[2]).toBe('failed');
    expect(statuses[4]).toBe('failed');
    for (const i of [1, 3]) expect(await waitForDelivery(t.database.handle.db, ids[i]!, 'delivered')).toMatchObject({ delivery_attempts: 1 });
  });

  it('can be redelivered once an endpoint is set', async () => {
    const customer = await t.customer();
    const [id] = await record(t, sandboxOf(customer.customer_id));
    expect(await stored(t, id!)).toMatchObject(FAILED_UNATTEMPTED);
    const client = t.client(customer.sandbox_api_key);
    await client.PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
    const { data } = await client.POST('/v1/webhook_events/{webhook_id}/redeliver', { params: { path: { webhook_id: id! } } });
    expect(data).toEqual({ scheduled: 1, has_more: false });
    expect(await waitForDelivery(t.database.handle.db, id!, 'delivered')).toMatchObject({ delivery_attempts: 1, delivery_status_code: 200 });
  });

  it('is judged in a unit of inserts only (on PostgreSQL one statement)', async () => {
    const [without, withEndpoint] = [await t.customer(), await t.customer()];
    await t.client(withEndpoint.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
    const ids = await t.app.services.units.runInserts('req_inserts', async (uow) => {
      await uow.emit(sandboxOf(without.customer_id), notifyRx(1));
      await uow.emit(sandboxOf(withEndpoint.customer_id), notifyRx(2));
      return uow.events.map((event) => event.id);
    });
    expect(await stored(t, ids[0]!)).toMatchObject(FAILED_UNATTEMPTED);
    expect(await waitForDelivery(t.database.handle.db, ids[1]!, 'delivered')).toMatchObject({ delivery_attempts: 1 });
  });

  it('is recorded with the state change it reports: a refused unit of work records neither', async () => {
    const customer = await t.customer();
    const owner = sandboxOf(customer.customer_id);
    const before = await t.database.handle.db.selectFrom('events').select('id').where('customer_id', '=', customer.customer_id).execute();
    await expect(
      t.app.services.units.run('req_refused', async (uow) => {
        await uow.emit(owner, notifyRx(1));
        throw new Error('refused after its event');
      }),
    ).rejects.toThrow('refused after its event');
    expect(await t.database.handle.db.selectFrom('events').select('id').where('customer_id', '=', customer.customer_id).execute()).toEqual(before);
  });
});

describe('an event whose first attempt waits', () => {
  // An hour, on the service's clock: the test moves it past the first attempt when it has
  // done what comes before (on a loaded machine, setting an endpoint can take longer than a
  // short real wait).
  const FIRST_DELAY_MS = 3_600_000;
  let later: TestApp;
  beforeAll(async () => {
    later = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_POLL_MS: '50' });
  });
  afterEach(() => resetClock());
  afterAll(async () => later?.close());

  it('is recorded pending without an endpoint, and delivered to one set before it is due', async () => {
    const customer = await later.customer();
    const [id] = await record(later, sandboxOf(customer.customer_id));
    expect(await stored(later, id!)).toMatchObject({ delivery_status: 'pending', delivery_attempts: 0 });
    await later.client(customer.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
    advanceClock(FIRST_DELAY_MS + 1000);
    expect(await waitForDelivery(later.database.handle.db, id!, 'delivered')).toMatchObject({ delivery_attempts: 1, delivery_status_code: 200 });
  });

  it('ends failed with no attempt when still no endpoint is set when it is due', async () => {
    const customer = await later.customer();
    const [id] = await record(later, sandboxOf(customer.customer_id));
    expect((await stored(later, id!)).delivery_status).toBe('pending');
    advanceClock(FIRST_DELAY_MS + 1000);
    expect(await waitForDelivery(later.database.handle.db, id!, 'failed')).toMatchObject({ delivery_attempts: 0, delivery_status_code: null, next_attempt_at: null });
  });
});
