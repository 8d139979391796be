import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { deliveryOf, recordEvent, startReceiver, TEST_SECRETS_KEY, waitForDelivery, type Answer, type Receiver } from './support/webhook-receiver.js';

/**
 * An endpoint whose deliveries keep failing is disabled, as Stripe and Svix do, and its
 * customer sees why on the endpoint's read. Here an endpoint is disabled once its attempts
 * have failed 4 times in a row over at least 300 ms (each event gets 2 attempts 50 ms apart).
 */
const logged: Record<string, unknown>[] = [];
let t: TestApp;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await startTestApp(
    {
      SECRETS_KEY: TEST_SECRETS_KEY,
      WEBHOOK_RETRY_SCHEDULE: '0,50ms',
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_DISABLE_AFTER: '300ms',
      WEBHOOK_DISABLE_MIN_FAILURES: '4',
    },
    { log: (entry) => logged.push(entry) },
  );
});
afterAll(async () => {
  await t?.close();
  await Promise.all(receivers.map((r) => r.close()));
});

interface Subscriber {
  customer: NewCustomer;
  owner: Owner;
  receiver: Receiver;
  client: ReturnType<TestApp['client']>;
}

async function subscriber(answer: Answer): Promise<Subscriber> {
  const receiver = await startReceiver(answer);
  receivers.push(receiver);
  const customer = await t.customer();
  const client = t.client(customer.sandbox_api_key);
  expect((await client.PUT('/v1/webhook_endpoint', { body: { url: receiver.url } })).response.status).toBe(200);
  return { customer, owner: { customerId: customer.customer_id, environment: 'sandbox' }, receiver, client };
}

/** Records an event and waits until its delivery is over (delivered or failed). */
async function deliveredOrFailed(s: Subscriber, n: number) {
  const event = await recordEvent(t.database.handle.db, s.owner, n);
  t.app.services.webhookDelivery.notify();
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const row = await deliveryOf(t.database.handle.db, event.id);
    if (row.delivery_status === 'delivered' || row.delivery_status === 'failed') return { ...event, ...row };
  }
  throw new Error(`event ${event.id} is still being delivered`);
}

async function endpointOf(s: Subscriber) {
  return (await s.client.GET('/v1/webhook_endpoint')).data!;
}

describe('an endpoint that keeps failing', () => {
  it('is disabled once every attempt failed for the period, with a notice on its read and in the log; its events are then not attempted', async () => {
    const s = await subscriber(() => 503);
    // Two failed attempts: too few, and too soon, to disable a new endpoint.
    await deliveredOrFailed(s, 1);
    expect(await endpointOf(s)).toMatchObject({ status: 'enabled', disabled_at: null, disabled_reason: null });

    await new Promise((r) => setTimeout(r, 300));
    await deliveredOrFailed(s, 2);
    const disabled = await endpointOf(s);
    expect(disabled).toMatchObject({ status: 'disabled', disabled_at: expect.any(String) });
    expect(disabled.disabled_reason).toMatch(/^Every delivery attempt since \S+ failed \(4 in a row\)/);
    expect(disabled.disabled_reason).toContain('POST /v1/webhook_endpoint/enable');
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 40, customer_id: s.customer.customer_id, environment: 'sandbox', failures: 4, msg: expect.stringContaining('webhook endpoint disabled') }),
    );

    // Events due while it is disabled end failed without an attempt.
    const requests = s.receiver.received.length;
    const skipped = await deliveredOrFailed(s, 3);
    expect(skipped).toMatchObject({ delivery_status: 'failed', delivery_attempts: 0, delivery_status_code: null });
    expect(s.receiver.received).toHaveLength(requests);
    // The test request still reaches it, to check the receiver before enabling it again.
    expect((await s.client.POST('/v1/webhook_endpoint/test')).data).toMatchObject({ delivered: false, status_code: 503 });
  });

  it('is not disabled while a success interrupts its failures', async () => {
    // Every third request succeeds: never 4 failures in a row.
    const s = await subscriber((n) => (n % 3 === 2 ? 200 : 503));
    for (let n = 0; n < 4; n++) await deliveredOrFailed(s, n);
    await new Promise((r) => setTimeout(r, 300));
    for (let n = 4; n < 6; n++) await deliveredOrFailed(s, n);
    expect(s.receiver.received.length).toBeGreaterThanOrEqual(8);
    expect(await endpointOf(s)).toMatchObject({ status: 'enabled' });
  });
});

describe('enabling a disabled endpoint again', () => {
  /** A subscriber whose endpoint has just been disabled; its receiver then recovers. */
  async function disabledSubscriber(): Promise<Subscriber> {
    let failing = true;
    const s = await subscriber(() => (failing ? 503 : 200));
    await deliveredOrFailed(s, 1);
    await new Promise((r) => setTimeout(r, 300));
    await deliveredOrFailed(s, 2);
    expect(await endpointOf(s)).toMatchObject({ status: 'disabled' });
    failing = false;
    return s;
  }

  it.each([
    ['POST /v1/webhook_endpoint/enable', (s: Subscriber) => s.client.POST('/v1/webhook_endpoint/enable')],
    ['PUT /v1/webhook_endpoint with the same URL', (s: Subscriber) => s.client.PUT('/v1/webhook_endpoint', { body: { url: s.receiver.url } })],
  ])('through %s resumes deliveries, with a fresh count of failures', async (_name, enable) => {
    const s = await disabledSubscriber();
    const { data, response } = await enable(s);
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ status: 'enabled', disabled_at: null, disabled_reason: null, url: s.receiver.url });
    expect(data).not.toHaveProperty('secret');

    const delivered = await deliveredOrFailed(s, 3);
    expect(delivered).toMatchObject({ delivery_status: 'delivered', delivery_attempts: 1 });
    const row = await t.database.handle.db
      .selectFrom('webhook_endpoints')
      .select(['consecutive_failures', 'failing_since'])
      .where('customer_id', '=', s.customer.customer_id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ consecutive_failures: 0, failing_since: null });
  });

  it('answers the endpoint as it is when it is enabled already, and 404 without one', async () => {
    const s = await subscriber(() => 200);
    const before = await endpointOf(s);
    expect((await s.client.POST('/v1/webhook_endpoint/enable')).data).toEqual(before);
    const other = await t.customer();
    const { response, error } = await t.client(other.sandbox_api_key).POST('/v1/webhook_endpoint/enable');
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ message: 'Unable to find Webhook Endpoint.' });
  });

  it('keeps the failed events failed until they are redelivered', async () => {
    const s = await disabledSubscriber();
    const missed = await deliveredOrFailed(s, 3);
    expect(missed).toMatchObject({ delivery_status: 'failed', delivery_attempts: 0 });
    const since = (await endpointOf(s)).created_at;
    const refused = await s.client.POST('/v1/webhook_events/redeliver', { body: { since } });
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({ message: 'The webhook endpoint is disabled: enable it first (POST /v1/webhook_endpoint/enable).' });
    await s.client.POST('/v1/webhook_endpoint/enable');
    await new Promise((r) => setTimeout(r, 200));
    expect((await deliveryOf(t.database.handle.db, missed.id)).delivery_status).toBe('failed');

    const { data } = await s.client.POST('/v1/webhook_events/redeliver', { body: { since } });
    expect(data).toEqual({ scheduled: 3, has_more: false });
    await waitForDelivery(t.database.handle.db, missed.id, 'delivered');
    expect(s.receiver.received.filter((r) => r.headers['webhook-id'] === missed.id)).toHaveLength(1);
  });
});
