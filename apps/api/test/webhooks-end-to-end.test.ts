import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, type PharmacyWebhookEvent } from '@pharmacy/client';
import { eventProblems } from './support/event-schemas.js';
import { createPatient, destination } from './support/fixtures.js';
import { pharmacyEnv, transferBody } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { startReceiver, TEST_SECRETS_KEY, type Receiver, type ReceivedRequest } from './support/webhook-receiver.js';

/**
 * The integrator's story, end to end over real HTTP: a fresh sandbox customer points its
 * webhook endpoint at a receiver, does its work through the API, and the sandbox's simulated
 * pharmacy produces events that arrive signed, verify with the client's helper, and match
 * what the event feed lists.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    ...pharmacyEnv,
    SANDBOX_STEP_DELAY_MS: '0',
    SECRETS_KEY: TEST_SECRETS_KEY,
    WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_POLL_MS: '50',
  });
});
afterAll(async () => t?.close());

interface Subscriber {
  key: string;
  secret: string;
  receiver: Receiver;
}

/** A fresh customer whose sandbox endpoint is a new local receiver. */
async function subscriber(answer?: Parameters<typeof startReceiver>[0]): Promise<Subscriber> {
  const receiver = await startReceiver(answer);
  const customer = await t.customer();
  const key = customer.sandbox_api_key;
  const { data, response } = await t.client(key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
  expect(response.status).toBe(200);
  return { key, secret: data!.secret!, receiver };
}

/** Verifies every delivery with the client's helper; answers the events, each valid against the spec. */
function verified(requests: ReceivedRequest[], secret: string): (PharmacyWebhookEvent & { webhookId: string })[] {
  return requests.map((request) => {
    const event = verifyWebhook({ headers: request.headers as Record<string, string>, body: request.body, secret });
    expect(eventProblems(event)).toEqual([]);
    return { ...event, webhookId: request.headers['webhook-id'] as string };
  });
}

/** Waits until the receiver holds deliveries for which `done` holds, then verifies them all. */
async function deliveriesUntil(s: Subscriber, done: (events: PharmacyWebhookEvent[]) => boolean) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const events = verified(s.receiver.received, s.secret);
    if (done(events)) return events;
    if (Date.now() > deadline) throw new Error(`deliveries so far: ${events.map((e) => e.callback_type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const count = (events: PharmacyWebhookEvent[], type: string, status?: string) =>
  events.filter((e) => e.callback_type === type && (status === undefined || e.status === status)).length;

describe('a fresh sandbox customer, through real deliveries', () => {
  it('receives NOTIFY_RX for an electronic prescription, then ORDER and SHIPMENT through DELIVERED for its fill', async () => {
    const s = await subscriber();
    try {
      const client = t.client(s.key);
      const patient = await createPatient(t, s.key);
      const rx = await client.POST('/v1/sandbox/electronic_prescriptions', {
        body: { patient_token: patient, medication_name: 'Lisinopril 10 mg tablet', refills: 2 },
      });
      expect(rx.response.status).toBe(201);

      const [notify] = await deliveriesUntil(s, (events) => count(events, 'NOTIFY_RX') === 1);
      if (notify!.callback_type !== 'NOTIFY_RX') throw new Error('expected NOTIFY_RX');
      // The typed union narrows on callback_type: details are NOTIFY_RX's.
      expect(notify!.details.prescription_token).toBe(rx.data!.prescription_token);
      expect(notify!.details.patient_token).toBe(patient);

      const fill = await client.POST('/v1/fill_request', {
        body: {
          patient_token: patient,
          patient_payment_type: 'cash',
          medications: [{ prescription_token: notify!.details.prescription_token }],
          ...destination,
          metadata: 'order-e2e',
        } as never,
      });
      expect(fill.response.status).toBe(201);
      const request = fill.data!.request_id;

      // ORDER and three SHIPMENT milestones (deliveries may arrive in any order).
      const events = await deliveriesUntil(s, (all) => all.filter((e) => e.request_id === request).length >= 4);
      const ofFill = events.filter((e) => e.request_id === request);
      expect(ofFill.map((e) => (e.callback_type === 'SHIPMENT' ? `SHIPMENT:${e.details.status}` : e.callback_type)).sort()).toEqual(
        ['ORDER', 'SHIPMENT:DELIVERED', 'SHIPMENT:IN_TRANSIT', 'SHIPMENT:OUT_FOR_DELIVERY'],
      );
      const order = ofFill.find((e) => e.callback_type === 'ORDER');
      if (order?.callback_type !== 'ORDER') throw new Error('expected ORDER');
      expect(order.status).toBe('success');
      expect(order.details.metadata).toBe('order-e2e');
      expect(order.details.medications[0]).toMatchObject({ prescription_token: notify!.details.prescription_token, fill_number: 0 });

      // Every delivery has its own id, and the feed lists exactly the delivered envelopes.
      expect(new Set(events.map((e) => e.webhookId)).size).toBe(events.length);
      const feed = await client.GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
      const listed = feed.data!.results.map((r) => JSON.stringify(r.payload));
      const delivered = s.receiver.received.map((r) => JSON.stringify(JSON.parse(r.body)));
      expect(listed.sort()).toEqual(delivered.sort());
      // The last delivery's outcome may still be being recorded as the receiver answers.
      const outcomes = feed.data!.results.map((r) => r.delivery_data.status);
      expect(outcomes.every((status) => status === 'delivered' || status === 'pending')).toBe(true);
    } finally {
      await s.receiver.close();
    }
  });

  it('receives, for a transfer of 3 medications, TRANSFER_CONTACT, 3 NOTIFY_RX and one TRANSFER success', async () => {
    const s = await subscriber();
    try {
      const patient = await createPatient(t, s.key);
      const medications = ['Lipitor 20 mg', 'Metformin 500 mg', 'Amoxicillin 250 mg'];
      const { data } = await t.client(s.key).POST('/v1/transfer_request', { body: transferBody(patient, medications) as never });
      // Deliveries run in parallel, in no set order: wait for five, then for any stragglers.
      await deliveriesUntil(s, (all) => all.length >= 5);
      await new Promise((r) => setTimeout(r, 300));
      const events = verified(s.receiver.received, s.secret);
      expect(events).toHaveLength(5);
      expect(count(events, 'TRANSFER_CONTACT', 'success')).toBe(1);
      expect(count(events, 'NOTIFY_RX')).toBe(3);
      const transfer = events.find((e) => e.callback_type === 'TRANSFER')!;
      expect(transfer).toMatchObject({ status: 'success', request_id: data!.request_id });
      const notified = events.flatMap((e) => (e.callback_type === 'NOTIFY_RX' ? [e.details.medication_name] : []));
      expect(notified.sort()).toEqual([...medications].sort());
    } finally {
      await s.receiver.close();
    }
  });

  it('receives a forced rejection as a TRANSFER error with its code', async () => {
    const s = await subscriber();
    try {
      const patient = await createPatient(t, s.key);
      await t.client(s.key).POST('/v1/transfer_request', {
        body: transferBody(patient, ['Lipitor 20 mg'], { notes: 'sandbox:reject:RX_NO_REFILLS' }) as never,
      });
      const events = await deliveriesUntil(s, (all) => count(all, 'TRANSFER') === 1);
      const transfer = events.find((e) => e.callback_type === 'TRANSFER');
      if (transfer?.callback_type !== 'TRANSFER') throw new Error('expected TRANSFER');
      expect(transfer.status).toBe('error');
      expect(JSON.stringify(transfer.details)).toContain('RX_NO_REFILLS');
      expect(count(events, 'NOTIFY_RX')).toBe(0);
    } finally {
      await s.receiver.close();
    }
  });

  it('gets a delivery its receiver refused again, with the same webhook-id, once the receiver recovers', async () => {
    // The receiver is down for its first two requests.
    const s = await subscriber((n) => (n < 2 ? 503 : 200));
    try {
      const patient = await createPatient(t, s.key);
      await t.client(s.key).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient, medication_name: 'Lisinopril 10 mg tablet' } });
      await s.receiver.waitFor(3, 15_000);
      const ids = s.receiver.received.map((r) => r.headers['webhook-id']);
      expect(new Set(ids).size).toBe(1);
      const [event] = verified(s.receiver.received.slice(2), s.secret);
      expect(event!.callback_type).toBe('NOTIFY_RX');
      const feed = await t.client(s.key).GET('/v1/webhook_events/{webhook_type}', {
        params: { path: { webhook_type: 'notify_rx' }, query: { limit: 10 } },
      });
      await expect
        .poll(async () => {
          const again = await t.client(s.key).GET('/v1/webhook_events', { params: { query: { limit: 10 } } });
          return again.data!.results[0]?.delivery_data;
        })
        .toMatchObject({ status: 'delivered', status_code: 200 });
      expect(feed.data!.results).toHaveLength(1);
    } finally {
      await s.receiver.close();
    }
  });
});
