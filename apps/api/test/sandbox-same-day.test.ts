// Same-day delivery in the sandbox: the simulated courier (SANDBOX_STEP_DELAY_MS=0) carries a
// sandbox order through AWAITING_PICKUP, IN_TRANSIT and DELIVERED by itself, and the
// integrator's webhook endpoint (a local receiver) gets each SAME_DAY_DELIVERY event, signed;
// `sandbox:canceled`, `sandbox:failed` and `sandbox:incomplete` in `metadata` or
// `delivery_instruction` force the failure paths. Production orders are left to staff.
import { verifyWebhook } from '@pharmacy/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { eventProblems } from './support/event-schemas.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { PICKUP, usePickupDirectory } from './support/same-day-pickup.js';
import { startSandboxWithReceiver, type SandboxWithReceiver } from './support/sandbox-receiver.js';
import type { TestApp } from './support/test-app.js';
import { expectedSignature, type Receiver } from './support/webhook-receiver.js';

let t: TestApp;
let acme: NewCustomer;
let receiver: Receiver;
let secret: string;
let sandbox: SandboxWithReceiver | undefined;

beforeAll(async () => {
  sandbox = await startSandboxWithReceiver();
  ({ t, acme, receiver, secret } = sandbox);
  usePickupDirectory(t);
});
afterAll(async () => sandbox?.close());

const key = () => acme.sandbox_api_key;

interface Delivered {
  request_id: string;
  callback_type: string;
  status: string;
  details: Record<string, any>;
  timestamp: number;
}

/** The order's deliveries so far, each verified (signature and schema), once per webhook-id. */
function deliveriesOf(id: string): Delivered[] {
  const byId = new Map<string, Delivered>();
  for (const request of receiver.received) {
    const event = verifyWebhook({ headers: request.headers as Record<string, string>, body: request.body, secret }) as unknown as Delivered;
    const webhookId = request.headers['webhook-id'] as string;
    if (event.request_id !== id || byId.has(webhookId)) continue;
    // Recomputed independently of the client's helper too.
    expect(request.headers['webhook-signature']).toContain(expectedSignature(secret, webhookId, request.headers['webhook-timestamp'] as string, request.body));
    expect(eventProblems(event)).toEqual([]);
    byId.set(webhookId, event);
  }
  return [...byId.values()];
}

/** Waits until the order's last status arrived; answers the deliveries in the order of the statuses' moves. */
async function deliveredUntil(id: string, last: string): Promise<Delivered[]> {
  const deadline = Date.now() + 15_000;
  const order = ['AWAITING_PICKUP', 'IN_TRANSIT', 'DELIVERED', 'FAILED', 'CANCELED', 'INCOMPLETE'];
  for (;;) {
    const events = deliveriesOf(id);
    if (events.some((e) => e.details.delivery_status === last)) {
      await new Promise((r) => setTimeout(r, 150)); // any straggler would be an extra move
      return deliveriesOf(id).sort((a, b) => order.indexOf(a.details.delivery_status) - order.indexOf(b.details.delivery_status));
    }
    if (Date.now() > deadline) throw new Error(`deliveries so far: ${events.map((e) => e.details.delivery_status).join(', ')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const summary = (events: Delivered[]) => events.map((e) => `${e.status}:${e.details.delivery_status}`);

async function createOrder(over: Record<string, unknown> = {}) {
  const patient = await createPatient(t, key());
  const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
  const { data, response } = await t.client(key()).POST('/v1/same_day_delivery', {
    body: {
      patient_token: patient,
      prescription_tokens: [rx.token],
      shipping_address: { name: 'Jane Doe', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107', country: 'US', email: 'jane@example.com' },
      external_location: { ncpdpid: PICKUP.ncpdpid, distance_from_origin: 1.2 },
      ...over,
    } as never,
  });
  expect(response.status).toBe(201);
  expect(data!.status).toBe('PENDING');
  return data!;
}

const read = async (id: string) => (await t.client(key()).GET('/v1/same_day_delivery/{id}', { params: { path: { id } } })).data!;

describe('a sandbox same-day order, carried by the simulated courier to a local receiver', () => {
  it('AWAITING_PICKUP, IN_TRANSIT, DELIVERED: signed deliveries, tokens only; the order reads DELIVERED', async () => {
    const order = await createOrder({ metadata: 'order-sdd-1', delivery_instruction: 'Buzz 4B' });
    const events = await deliveredUntil(order.id, 'DELIVERED');
    expect(summary(events)).toEqual(['success:AWAITING_PICKUP', 'success:IN_TRANSIT', 'success:DELIVERED']);
    for (const e of events) {
      expect(e).toMatchObject({ callback_type: 'SAME_DAY_DELIVERY', request_id: order.id });
      expect(e.details).toMatchObject({ id: order.id, patient_token: order.patient_token, prescription_tokens: order.prescription_tokens, metadata: 'order-sdd-1' });
      expect(JSON.stringify(e)).not.toMatch(/Jane|Market St|Sam R\./);
    }
    expect(events[0]!.details.tracking_url).toBe(`https://courier.sandbox.example.com/track/${order.id}`);
    const done = await read(order.id);
    expect(done).toMatchObject({ status: 'DELIVERED', courier: { company: 'Sandbox Courier' }, delivered_at: expect.any(String), eta: null });

    const listed = await t.client(key()).GET('/v1/same_day_delivery', { params: { query: { status: 'DELIVERED' } } });
    expect(listed.data!.results.map((r) => r.id)).toContain(order.id);
  });

  it.each([
    [{ metadata: 'sandbox:canceled' }, ['error:CANCELED'], 'CANCELED'],
    [{ metadata: 'x sandbox:failed' }, ['success:AWAITING_PICKUP', 'success:IN_TRANSIT', 'error:FAILED'], 'FAILED'],
    [{ delivery_instruction: 'Ring twice. sandbox:incomplete' }, ['success:AWAITING_PICKUP', 'success:IN_TRANSIT', 'error:INCOMPLETE'], 'INCOMPLETE'],
  ])('trigger %j', async (over, expected, status) => {
    const order = await createOrder(over);
    const events = await deliveredUntil(order.id, status);
    expect(summary(events)).toEqual(expected);
    const final = await read(order.id);
    expect(final.status).toBe(status);
    expect(final.status_reason).toEqual(expect.stringContaining('sandbox:'));
    expect(events[events.length - 1]!.details.status_reason).toBe(final.status_reason);
  });

  it('a production order is left to staff: the simulated courier does not touch it', async () => {
    const patient = await createPatient(t, acme.production_api_key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: patient });
    const { data } = await t.client(acme.production_api_key).POST('/v1/same_day_delivery', {
      body: {
        patient_token: patient,
        prescription_tokens: [rx.token],
        shipping_address: { name: 'Jane Doe', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107', country: 'US', email: 'jane@example.com' },
        external_location: { ncpdpid: PICKUP.ncpdpid },
      },
    });
    await new Promise((r) => setTimeout(r, 500));
    const read = await t.client(acme.production_api_key).GET('/v1/same_day_delivery/{id}', { params: { path: { id: data!.id } } });
    expect(read.data!.status).toBe('PENDING');
  });
});
