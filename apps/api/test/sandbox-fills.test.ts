// Fills in the sandbox: an electronic prescription (receiveSandboxElectronicPrescription), then a
// fill request the simulated pharmacy orders, ships and delivers, or holds as `sandbox:` metadata asks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { sandboxSteps, startSimulatedSandbox, summary } from './support/sandbox-steps.js';
import type { TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  ({ t, acme } = await startSimulatedSandbox());
});
afterAll(async () => t?.close());

const { db, sandboxKey, waitForEvent, notifyRxOf, createFillRequest } = sandboxSteps(() => ({ t, acme }));

describe('from a fresh sandbox: electronic prescription, fill request, order, shipment', () => {
  it('NOTIFY_RX, then ORDER, SHIPMENT IN_TRANSIT, OUT_FOR_DELIVERY, DELIVERED; the order delivered; the feed lists them', async () => {
    const fresh = await t.customer('Fresh');
    const key = fresh.sandbox_api_key;
    const patient = await createPatient(t, key);
    const { data, response } = await t.client(key).POST('/v1/sandbox/electronic_prescriptions', {
      body: { patient_token: patient, medication_name: 'Lisinopril 10 mg tablet', refills: 3 },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ patient_token: patient, patient_token_duplicates: [] });
    const [notify] = await notifyRxOf(patient, fresh.customer_id);
    expect(notify!.details).toMatchObject({ prescription_token: data!.prescription_token, medication_name: 'Lisinopril 10 mg tablet' });

    const request = await createFillRequest(patient, data!.prescription_token, 'order-10046', key);
    const events = await waitForEvent(request, (e) => e.callback_type === 'SHIPMENT' && e.details.status === 'DELIVERED', 'DELIVERED', fresh.customer_id);
    expect(summary(events)).toEqual([
      'ORDER:success',
      'SHIPMENT:success:IN_TRANSIT',
      'SHIPMENT:success:OUT_FOR_DELIVERY',
      'SHIPMENT:success:DELIVERED',
    ]);
    const order = events[0]!.details;
    expect(order).toMatchObject({ metadata: 'order-10046', patient_token: patient });
    expect(order.medications[0]).toMatchObject({ prescription_token: data!.prescription_token, fill_number: 0, dispensed_ndc: '00071015523' });
    const read = await t.client(key).GET('/v1/order/{token}', { params: { path: { token: order.order_token } } });
    expect(read.data).toMatchObject({ status: 'delivered', carrier: 'USPS', tracking_number: events[3]!.details.tracking_number });

    // The event feed lists the same envelopes (the typed client checks them against the spec).
    const feed = await t.client(key).GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
    expect(feed.response.status).toBe(200);
    const listed = feed.data!.results.map((r) => r.payload as { callback_type: string });
    expect(listed.map((p) => p.callback_type).sort()).toEqual(['NOTIFY_RX', 'ORDER', 'SHIPMENT', 'SHIPMENT', 'SHIPMENT']);
  });

  it.each([
    ['sandbox:triage', ['ORDER:triage'], 'triage'],
    ['sandbox:error', ['ORDER:error'], 'error'],
    ['sandbox:returned', ['ORDER:success', 'SHIPMENT:success:IN_TRANSIT', 'SHIPMENT:error:RETURNED'], 'filled'],
  ])('fill request metadata `%s`', async (metadata, expected, requestStatus) => {
    const patient = await createPatient(t, sandboxKey());
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const request = await createFillRequest(patient, rx.token, metadata);
    const last = expected[expected.length - 1]!;
    const events = await waitForEvent(request, (e) => summary([e])[0] === last, last);
    expect(summary(events)).toEqual(expected);
    // Nothing filled: no order to name, no fill date, no medications.
    const order = events[0]!;
    if (order.status !== 'success') expect(order.details).toMatchObject({ order_token: null, date_filled: null, medications: [] });
    else expect(order.details.order_token).toEqual(expect.any(String));
    const { data } = await t.client(sandboxKey()).GET('/v1/fill_request/{url_token}', { params: { path: { url_token: request } } });
    expect(data!.status).toBe(requestStatus);
  });
});

describe('POST /v1/sandbox/electronic_prescriptions', () => {
  it('fills in defaults, and accepts form bodies and the /api/v1 alias', async () => {
    const patient = await createPatient(t, sandboxKey());
    const form = await t.raw('POST', '/api/v1/sandbox/electronic_prescriptions', {
      headers: { authorization: `ApiKey ${sandboxKey()}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ patient_token: patient, quantity: '60' }).toString(),
    });
    expect(form.status).toBe(201);
    const rx = await db().selectFrom('prescriptions').selectAll().where('token', '=', form.json.prescription_token).executeTakeFirstOrThrow();
    expect(rx).toMatchObject({ medication_name: 'Atorvastatin 20 mg tablet', prescribed_quantity: 60, number_of_refills_allowed: 2, origin: 'electronic', environment: 'sandbox' });
  });

  it('names look-alike patients (same names and date of birth, other gender) in patient_token_duplicates', async () => {
    const first_name = `Twin${Date.now()}`;
    const patient = await createPatient(t, sandboxKey(), { first_name });
    const other = await createPatient(t, sandboxKey(), { first_name, gender: 'male' });
    const { data } = await t.client(sandboxKey()).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient } });
    expect(data!.patient_token_duplicates).toEqual([other]);
    const [notify] = await notifyRxOf(patient);
    expect(notify!.details.patient_token_duplicates).toEqual([other]);
  });

  it('refuses a production key (403), an unknown patient (404), another customer\'s patient (400) and bad fields (400)', async () => {
    const patient = await createPatient(t, sandboxKey());
    const production = await t.client(acme.production_api_key).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient } });
    expect(production.response.status).toBe(403);
    expect(production.error).toMatchObject({ message: 'This operation is available in the sandbox only.' });
    const unknown = await t.client(sandboxKey()).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: 'nope' } });
    expect(unknown.response.status).toBe(404);
    const globex = await t.customer('Globex');
    const foreign = await t.client(globex.sandbox_api_key).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient } });
    expect(foreign.response.status).toBe(400);
    const bad = await t.client(sandboxKey()).POST('/v1/sandbox/electronic_prescriptions', {
      body: { patient_token: patient, prescribed_ndc: 'abc', refills: 100 } as never,
    });
    expect(bad.response.status).toBe(400);
    expect(await notifyRxOf(patient)).toEqual([]);
  });
});
