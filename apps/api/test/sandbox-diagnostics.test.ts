// Lab orders in the sandbox: the simulated lab carries an order through its milestones by
// itself (SANDBOX_STEP_DELAY_MS=0), and the integrator's webhook endpoint receives each
// DIAGNOSTICS_* event, signed; markers in custom_data_1..3 force results out of range or a
// rejection; a kit the customer holds skips the milestones to the patient.
import { verifyWebhook } from '@pharmacy/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { CALLBACK_TYPE, createOrder, freshSerial, getOrder, MILESTONES, physician, registerOrder, resultsOf, shippingAddress, TESTS } from './support/diagnostic-orders.js';
import { createPatient } from './support/fixtures.js';
import { startSandboxWithReceiver, type SandboxWithReceiver } from './support/sandbox-receiver.js';
import type { TestApp } from './support/test-app.js';
import type { Receiver } from './support/webhook-receiver.js';

let t: TestApp;
let acme: NewCustomer;
let receiver: Receiver;
let secret: string;
let patient: string;

let sandbox: SandboxWithReceiver | undefined;
beforeAll(async () => {
  sandbox = await startSandboxWithReceiver();
  ({ t, acme, receiver, secret } = sandbox);
  patient = await createPatient(t, acme.sandbox_api_key);
});
afterAll(async () => sandbox?.close());

const key = () => acme.sandbox_api_key;
type Delivered = { webhookId: string; received: number } & Record<string, any>;

/**
 * The order's deliveries so far, each verified with the client's helper and the endpoint's
 * secret, once per webhook-id (deliveries are at least once), in milestone order: by the
 * envelope's `timestamp` (seconds), then when the milestone occurred, then as received.
 */
function deliveriesOf(orderId: string): Delivered[] {
  const byId = new Map<string, Delivered>();
  receiver.received.forEach((request, received) => {
    const event = verifyWebhook({ headers: request.headers as Record<string, string>, body: request.body, secret }) as Record<string, any>;
    const webhookId = request.headers['webhook-id'] as string;
    if (event.request_id === orderId && !byId.has(webhookId)) byId.set(webhookId, { ...event, webhookId, received });
  });
  return [...byId.values()].sort(
    (a, b) => a.timestamp - b.timestamp || a.details.occurred_at.localeCompare(b.details.occurred_at) || a.received - b.received,
  );
}

/** Waits until the order's deliveries number `count`, the last one of `lastType`. */
async function deliveredUntil(orderId: string, count: number, lastType: string): Promise<Delivered[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const events = deliveriesOf(orderId);
    if (events.length >= count && events.some((e) => e.callback_type === lastType)) {
      // Any delivery beyond `count` would be a duplicate or an extra milestone: give stragglers a moment.
      await new Promise((r) => setTimeout(r, 150));
      return deliveriesOf(orderId);
    }
    if (Date.now() > deadline) throw new Error(`deliveries so far: ${events.map((e) => e.callback_type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The order's events in the feed (the typed client checks each against the spec). */
async function feedOf(orderId: string) {
  const { data } = await t.client(key()).GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
  return data!.results.map((r) => r.payload as Record<string, any>).filter((p) => p.request_id === orderId);
}

const envelope = ({ webhookId: _id, received: _at, ...event }: Delivered) => event;
const TRACKING = /^9400\d{18}$/;

describe('a sandbox order', () => {
  it('runs through the nine milestones by itself, each delivered signed, in milestone order; its results are then normal', async () => {
    const order = await createOrder(t, key(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress });
    const events = await deliveredUntil(order.id, 9, 'DIAGNOSTICS_RESULTS_AVAILABLE');
    expect(events.map((e) => e.details.status)).toEqual([...MILESTONES]);
    expect(events.map((e) => [e.callback_type, e.status])).toEqual(MILESTONES.map((m) => [CALLBACK_TYPE[m], 'success']));
    expect(new Set(events.map((e) => e.webhookId)).size).toBe(9);

    const read = await getOrder(t, key(), order.id);
    expect(read).toMatchObject({ status: 'RESULTS_AVAILABLE', accession_id: expect.stringMatching(/^ACC-/), kit: { serial: expect.stringMatching(/^SBX-/) } });
    const { shipment, return_shipment: back, serial } = read.kit;
    expect(shipment).toEqual({ carrier: 'usps', tracking_number: expect.stringMatching(TRACKING) });
    expect(back).toEqual({ carrier: 'usps', tracking_number: expect.stringMatching(TRACKING) });
    const leg = (l: typeof shipment) => [l!.carrier, l!.tracking_number];
    expect(events.map((e) => [e.details.carrier, e.details.tracking_number])).toEqual([
      [null, null],
      leg(shipment),
      leg(shipment),
      leg(shipment),
      leg(back),
      leg(back),
      leg(back),
      [null, null],
      [null, null],
    ]);
    expect(events.map((e) => e.details.kit_serial)).toEqual([null, ...Array(8).fill(serial)]);
    expect(events.map((e) => e.details.results_available)).toEqual([...Array(8).fill(false), true]);
    for (const e of events) expect(e.details).toMatchObject({ order_id: order.id, patient_token: patient, rejection: null });

    // The feed lists exactly what was delivered, in the same order.
    expect(await feedOf(order.id)).toEqual(events.map(envelope));

    const { v0, v2 } = await resultsOf(t, key(), order.id);
    expect(v0.map((r) => [r.panel_code, r.code, r.severity])).toEqual([
      ['tsh', '3016-3', 'normal'],
      ['free_t4', '3024-7', 'normal'],
    ]);
    for (const result of v0) {
      const [low, high] = result.reference_range!.split('-').map(Number);
      expect(Number(result.quantitative_value)).toBeGreaterThanOrEqual(low!);
      expect(Number(result.quantitative_value)).toBeLessThanOrEqual(high!);
    }
    expect(v2.map((r) => r.media_ids)).toEqual([[], []]);
  });

  it.each<[string, Record<string, unknown>, [string, string, string][]]>([
    ['thyroid function, custom_data_1', { test_id: TESTS.thyroid, custom_data_1: 'sandbox:abnormal' }, [['3016-3', 'high', '7'], ['3024-7', 'high', '3.7']]],
    ['chlamydia and gonorrhea, custom_data_2', { test_id: TESTS.sti, physician, custom_data_2: 'member-1 sandbox:abnormal' }, [['43304-5', 'abnormal', 'POSITIVE'], ['43305-2', 'abnormal', 'POSITIVE']]],
  ])('marked sandbox:abnormal (%s) has results out of range', async (_, body, expected) => {
    const order = await createOrder(t, key(), { patient_token: patient, address: shippingAddress, ...body });
    const events = await deliveredUntil(order.id, 9, 'DIAGNOSTICS_RESULTS_AVAILABLE');
    expect(events.map((e) => e.details.status)).toEqual([...MILESTONES]);
    const { v0 } = await resultsOf(t, key(), order.id);
    expect(v0.map((r) => [r.code, r.severity, r.quantitative_value ?? r.qualitative_value])).toEqual(expected);
  });

  it('marked sandbox:abnormal, a result with a low bound only is low', async () => {
    const order = await createOrder(t, key(), { patient_token: patient, address: shippingAddress, test_id: TESTS.lipid, physician, custom_data_3: 'sandbox:abnormal' });
    await deliveredUntil(order.id, 9, 'DIAGNOSTICS_RESULTS_AVAILABLE');
    const { v0 } = await resultsOf(t, key(), order.id);
    expect(v0.map((r) => [r.code, r.severity])).toEqual([
      ['2093-3', 'high'],
      ['2085-9', 'low'],
      ['13457-7', 'high'],
      ['43396-1', 'high'],
      ['2571-8', 'high'],
    ]);
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['sandbox:reject:fixable in custom_data_1', { custom_data_1: 'sandbox:reject:fixable' }, true],
    ['sandbox:reject in custom_data_3', { custom_data_3: 'retest sandbox:reject' }, false],
  ])('marked %s ends rejected after delivered to lab, as DIAGNOSTICS_ORDER_REJECTED with status error', async (_, marker, fixable) => {
    const order = await createOrder(t, key(), { patient_token: patient, test_id: TESTS.a1c, address: shippingAddress, ...marker });
    const events = await deliveredUntil(order.id, 8, 'DIAGNOSTICS_ORDER_REJECTED');
    expect(events.map((e) => e.details.status)).toEqual([...MILESTONES.slice(0, 7), 'REJECTED']);
    const rejected = events.at(-1)!;
    expect(rejected).toMatchObject({ callback_type: 'DIAGNOSTICS_ORDER_REJECTED', status: 'error' });
    const rejection = { reason: 'The sample could not be processed (sandbox:reject).', rejected_at: rejected.details.occurred_at, fixable };
    expect(rejected.details).toMatchObject({ carrier: null, tracking_number: null, results_available: false, rejection });

    const answered = await t.client(key()).GET('/diagnostics/v0/orders/{order_id}/rejection', { params: { path: { order_id: order.id } } });
    expect(answered.data).toEqual(rejection);
    expect((await getOrder(t, key(), order.id)).status).toBe('REJECTED');
    expect(await resultsOf(t, key(), order.id)).toEqual({ v0: [], v2: [], seed: [] });
  });

  it('of a kit the customer holds skips the three milestones to the patient, keeping its serial', async () => {
    const serial = freshSerial('HELD');
    const order = await registerOrder(t, key(), { kit_serial: serial, patient_token: patient, test_id: TESTS.vitaminD });
    const events = await deliveredUntil(order.id, 6, 'DIAGNOSTICS_RESULTS_AVAILABLE');
    expect(events.map((e) => e.details.status)).toEqual(['ORDER_SUCCESS', 'SHIPPED_TO_LAB', 'IN_TRANSIT_TO_LAB', 'DELIVERED_TO_LAB', 'LAB_ACCESSED_KIT', 'RESULTS_AVAILABLE']);
    expect(events.map((e) => e.details.kit_serial)).toEqual(Array(6).fill(serial));
    const read = await getOrder(t, key(), order.id);
    expect(read).toMatchObject({ status: 'RESULTS_AVAILABLE', kit: { serial, return_shipment: { carrier: 'usps' } } });
    expect(read.kit).not.toHaveProperty('shipment');
    expect((await resultsOf(t, key(), order.id)).v0.map((r) => [r.code, r.severity])).toEqual([['62292-8', 'normal']]);
  });
});
