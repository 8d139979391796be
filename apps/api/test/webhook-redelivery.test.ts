import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { transactorFor } from '../src/db/transactor.js';
import { WebhookDeliveryRepository } from '../src/webhook-deliveries/webhook-delivery-repository.js';
import { WebhookRedeliveryService } from '../src/webhook-deliveries/webhook-redelivery-service.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { deliveryOf, recordEvent, startReceiver, TEST_SECRETS_KEY, waitForDelivery, type Receiver } from './support/webhook-receiver.js';

/**
 * A customer asks for events again: one by its id, or every failed one since a time. Each
 * goes through the normal delivery path again, with the same webhook-id and body.
 */
let t: TestApp;
let receiver: Receiver;
/** The receiver fails while this is true. */
let failing = false;
beforeAll(async () => {
  // One attempt per event: a failure is final at once.
  t = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_POLL_MS: '50' });
  receiver = await startReceiver(() => (failing ? 503 : 200));
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

interface Subscriber {
  customer: NewCustomer;
  owner: Owner;
  client: ReturnType<TestApp['client']>;
}

async function subscriber(): Promise<Subscriber> {
  const customer = await t.customer();
  const client = t.client(customer.sandbox_api_key);
  await client.PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
  return { customer, owner: { customerId: customer.customer_id, environment: 'sandbox' }, client };
}

/** Records an event and waits for its delivery to end as `status`. */
async function recorded(s: Subscriber, n: number, status: 'delivered' | 'failed') {
  const event = await recordEvent(t.database.handle.db, s.owner, n);
  t.app.services.webhookDelivery.notify();
  await waitForDelivery(t.database.handle.db, event.id, status);
  return event;
}

const deliveriesOf = (id: string) => receiver.received.filter((r) => r.headers['webhook-id'] === id);

describe('redelivering one event', () => {
  it('sends it again through the normal path: same webhook-id and body, a fresh count of attempts', async () => {
    const s = await subscriber();
    const event = await recorded(s, 1, 'delivered');
    const { data, response } = await s.client.POST('/v1/webhook_events/{webhook_id}/redeliver', { params: { path: { webhook_id: event.id } } });
    expect(response.status).toBe(200);
    expect(data).toEqual({ scheduled: 1, has_more: false });
    await receiver.waitFor(receiver.received.length + 1);
    await waitForDelivery(t.database.handle.db, event.id, 'delivered');
    const requests = deliveriesOf(event.id);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.body)).toEqual([event.payload, event.payload]);
    expect(await deliveryOf(t.database.handle.db, event.id)).toMatchObject({ delivery_attempts: 1, delivery_status_code: 200 });
  });

  it('answers 404 for an event of another customer or of the other environment, and without an endpoint', async () => {
    const s = await subscriber();
    const event = await recorded(s, 1, 'delivered');
    const other = await subscriber();
    const path = { params: { path: { webhook_id: event.id } } };
    for (const client of [other.client, t.client(s.customer.production_api_key)]) {
      const { response, error } = await client.POST('/v1/webhook_events/{webhook_id}/redeliver', path);
      expect(response.status).toBe(404);
      expect(error).toMatchObject({ message: expect.stringMatching(/^Unable to find Webhook (Event|Endpoint)\.$/) });
    }
    const unknown = await s.client.POST('/v1/webhook_events/{webhook_id}/redeliver', { params: { path: { webhook_id: 'msg_unknown' } } });
    expect(unknown.error).toMatchObject({ statusCode: 404, message: 'Unable to find Webhook Event.' });
    expect(deliveriesOf(event.id)).toHaveLength(1);
  });

  it('answers 409 while an attempt of the event is under way', async () => {
    const s = await subscriber();
    const held = await recordEvent(t.database.handle.db, s.owner, 1, new Date(Date.now() + 60_000).toISOString());
    const { response, error } = await s.client.POST('/v1/webhook_events/{webhook_id}/redeliver', { params: { path: { webhook_id: held.id } } });
    expect(response.status).toBe(409);
    expect(error).toMatchObject({ message: 'The event is being delivered now; redeliver it once this attempt has ended.' });
  });
});

describe('redelivering failed events since a time', () => {
  it('schedules the failed events from then on, and leaves earlier and delivered ones alone', async () => {
    const s = await subscriber();
    failing = true;
    const before = await recorded(s, 1, 'failed');
    // Event timestamps are whole seconds: the next second starts a new range.
    await new Promise((r) => setTimeout(r, 1100 - (Date.now() % 1000)));
    const since = new Date().toISOString();
    const missed = [await recorded(s, 2, 'failed'), await recorded(s, 3, 'failed')];
    failing = false;
    const delivered = await recorded(s, 4, 'delivered');

    const { data } = await s.client.POST('/v1/webhook_events/redeliver', { body: { since } });
    expect(data).toEqual({ scheduled: 2, has_more: false });
    for (const event of missed) await waitForDelivery(t.database.handle.db, event.id, 'delivered');
    expect(missed.map((e) => deliveriesOf(e.id).length)).toEqual([2, 2]);
    expect((await deliveryOf(t.database.handle.db, before.id)).delivery_status).toBe('failed');
    expect(deliveriesOf(delivered.id)).toHaveLength(1);

    // Nothing failed is left: nothing more to schedule.
    expect((await s.client.POST('/v1/webhook_events/redeliver', { body: { since } })).data).toEqual({ scheduled: 0, has_more: false });
  });

  it('refuses a since that is not a date-time, and answers 404 without an endpoint', async () => {
    const s = await subscriber();
    const bad = await s.client.POST('/v1/webhook_events/redeliver', { body: { since: 'yesterday' } });
    expect(bad.response.status).toBe(400);
    expect((bad.error as { validation_errors: unknown[] }).validation_errors).toEqual([{ key: 'since', message: expect.any(String) }]);
    const production = await t.client(s.customer.production_api_key).POST('/v1/webhook_events/redeliver', { body: { since: new Date().toISOString() } });
    expect(production.error).toMatchObject({ statusCode: 404, message: 'Unable to find Webhook Endpoint.' });
  });

  it('schedules at most its bound per call, oldest first, and says when more are left', async () => {
    const s = await subscriber();
    failing = true;
    const events = [];
    for (let n = 0; n < 5; n++) events.push(await recorded(s, n, 'failed'));
    failing = false;
    const database = t.database.handle;
    const bounded = new WebhookRedeliveryService(new WebhookDeliveryRepository(database.db), transactorFor(database), t.app.services.webhookEndpoints, () => {}, 3);
    const since = new Date(0).toISOString();
    expect(await bounded.redeliverFailed(s.owner, since)).toEqual({ scheduled: 3, has_more: true });
    const scheduled = await Promise.all(events.map(async (e) => (await deliveryOf(database.db, e.id)).delivery_status !== 'failed'));
    expect(scheduled).toEqual([true, true, true, false, false]);
    expect(await bounded.redeliverFailed(s.owner, since)).toEqual({ scheduled: 2, has_more: false });
  });
});
