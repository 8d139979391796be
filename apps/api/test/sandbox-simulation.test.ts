// The sandbox's `simulation` object: on each create whose lifecycle the sandbox simulates, it
// forces the same outcome (the same events) as the deprecated `sandbox:` markers, which still
// work; a production key sending one is refused with 400 before anything is written, and an
// outcome the spec does not list answers 400 naming the allowed ones.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { advanceClock, resetClock } from '../src/clock.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { PrescriptionRepository } from '../src/prescriptions/prescription-repository.js';
import { consultBody, SAMPLE } from './support/consults.js';
import { createOrder, shippingAddress, TESTS } from './support/diagnostic-orders.js';
import { eventsOf, waitFor, type StoredEvent } from './support/event-schemas.js';
import { cashBody, fillRequestSteps } from './support/fill-request-steps.js';
import { address, createPatient, insertPrescription } from './support/fixtures.js';
import { directTransferBody, transferBody } from './support/lifecycle-fixtures.js';
import { PICKUP, usePickupDirectory } from './support/same-day-pickup.js';
import { sandboxSteps, startSimulatedSandbox, summary } from './support/sandbox-steps.js';
import type { TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  ({ t, acme } = await startSimulatedSandbox());
  usePickupDirectory(t);
});
afterAll(async () => t?.close());

const { db, sandboxKey, waitForEvent, notifyRxOf, createTransfer } = sandboxSteps(() => ({ t, acme }));
const PRODUCTION_REFUSAL = [{ key: 'simulation', message: 'is only accepted with a sandbox API key' }];

async function fillRequest(extra: Record<string, unknown>, key = sandboxKey()) {
  const patient = await createPatient(t, key);
  const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient, environment: key === sandboxKey() ? 'sandbox' : 'production' });
  const body = { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: rx.token }], ...address, patient_survey: {}, ...extra };
  return t.client(key).POST('/v1/fill_request', { body: body as never });
}

/** Each event as `CALLBACK_TYPE:status` of its details (consults, lab orders, same-day deliveries). */
const statuses = (events: StoredEvent[]) => events.map((e) => `${e.callback_type}:${e.details.status ?? e.details.delivery_status}`);

/** Every event of the customer that `about` picks, once the last expected one is there. */
function eventsUntil(about: (e: StoredEvent) => boolean, last: string): Promise<StoredEvent[]> {
  return waitFor(
    async () => {
      const events = (await eventsOf(db(), acme.customer_id)).filter(about);
      return statuses(events).includes(last) && events;
    },
    15_000,
    last,
  );
}

/** The rows the sandbox's schedule holds for a subject. */
const stepsOf = (token: string) => db().selectFrom('sandbox_steps').select(['simulation']).where('subject_token', '=', token).execute();

describe('transfer requests: simulation', () => {
  it.each([
    ['reject with an error_code', { outcome: 'reject', error_code: 'RX_NO_REFILLS' }, ['TRANSFER_CONTACT:success', 'TRANSFER:error'], 'RX_NO_REFILLS'],
    ['reject without one (TRANSFER_OTHER_REASON)', { outcome: 'reject' }, ['TRANSFER_CONTACT:success', 'TRANSFER:error'], 'TRANSFER_OTHER_REASON'],
    ['contact_error', { outcome: 'contact_error' }, ['TRANSFER_CONTACT:error', 'TRANSFER:error'], 'TRANSFER_CONTACT_INFO_INCORRECT'],
    ['complete', { outcome: 'complete' }, ['TRANSFER_CONTACT:success', 'TRANSFER:success'], undefined],
  ])('%s forces the outcome', async (_, simulation, expected, errorCode) => {
    const { token, patient } = await createTransfer(['Lisinopril'], { simulation });
    const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(expected);
    expect(events[1]!.details.error_code).toBe(errorCode);
    expect(await notifyRxOf(patient)).toHaveLength(errorCode ? 0 : 1);
    expect(await stepsOf(token)).toEqual([{ simulation: JSON.stringify(simulation) }]);
  });

  it('the simulation wins over a marker; the deprecated marker alone still forces its outcome', async () => {
    const both = await createTransfer(['Lisinopril'], { metadata: 'sandbox:contact_error', simulation: { outcome: 'complete' } });
    expect(summary(await waitForEvent(both.token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER'))).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:success']);
    const marker = await createTransfer(['Lisinopril'], { notes: 'sandbox:reject:RX_EXPIRED' });
    const events = await waitForEvent(marker.token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:error']);
    expect(events[1]!.details.error_code).toBe('RX_EXPIRED');
    expect(await stepsOf(marker.token)).toEqual([{ simulation: null }]);
  });

  it('refuses an unknown outcome or code (naming the allowed values), an error_code without reject, and a production key', async () => {
    const key = sandboxKey();
    const patient = await createPatient(t, key);
    const post = (body: Record<string, unknown>, apiKey = key) => t.client(apiKey).POST('/v1/transfer_request', { body: body as never });
    const unknown = await post(transferBody(patient, ['Lisinopril'], { simulation: { outcome: 'lost' } }));
    expect(unknown.response.status).toBe(400);
    expect(unknown.error).toMatchObject({ validation_errors: [{ key: 'simulation.outcome', message: 'must be one of [complete, reject, contact_error]' }] });
    const code = await post(transferBody(patient, ['Lisinopril'], { simulation: { outcome: 'reject', error_code: 'NOPE' } }));
    expect(code.response.status).toBe(400);
    expect((code.error as { validation_errors: unknown }).validation_errors).toEqual([expect.objectContaining({ key: 'simulation.error_code', message: expect.stringMatching(/^must be one of \[RX_DOSAGE_MISMATCH, /) })]);
    const stray = await post(transferBody(patient, ['Lisinopril'], { simulation: { outcome: 'complete', error_code: 'RX_EXPIRED' } }));
    expect(stray.error).toMatchObject({ validation_errors: [{ key: 'simulation.error_code', message: 'is not allowed' }] });
    const missing = await post(transferBody(patient, ['Lisinopril'], { simulation: {} }));
    expect(missing.error).toMatchObject({ validation_errors: [{ key: 'simulation.outcome', message: 'is required' }] });

    const production = acme.production_api_key;
    const productionPatient = await createPatient(t, production);
    const refused = await post(transferBody(productionPatient, ['Lisinopril'], { simulation: { outcome: 'complete' } }), production);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ validation_errors: PRODUCTION_REFUSAL });
    const stored = await db().selectFrom('transfer_requests').select('token').where('patient_token', 'in', [patient, productionPatient]).execute();
    expect(stored).toEqual([]);
  });
});

describe('direct transfers: simulation', () => {
  const post = (body: Record<string, unknown>, key = sandboxKey()) => t.client(key).POST('/v1/direct_transfer', { body: body as never });

  it('reject: only a DIRECT_TRANSFER error; accept wins over a marker; the marker alone still rejects', async () => {
    const rejected = await post({ ...directTransferBody(await createPatient(t, sandboxKey())), simulation: { outcome: 'reject' } });
    expect(rejected.response.status).toBe(201);
    expect(summary(await waitForEvent(rejected.data!.request_id, (e) => e.callback_type === 'DIRECT_TRANSFER', 'DIRECT_TRANSFER'))).toEqual(['DIRECT_TRANSFER:error']);

    const patient = await createPatient(t, sandboxKey());
    const accepted = await post({ ...directTransferBody(patient, { number: 'sandbox:reject' }), simulation: { outcome: 'accept' } });
    expect(summary(await waitForEvent(accepted.data!.request_id, (e) => e.callback_type === 'DIRECT_TRANSFER', 'DIRECT_TRANSFER'))).toEqual(['DIRECT_TRANSFER:success']);
    expect(await notifyRxOf(patient)).toHaveLength(1);

    const marker = await post(directTransferBody(await createPatient(t, sandboxKey()), { medication_sig: 'Take daily sandbox:reject' }));
    expect(summary(await waitForEvent(marker.data!.request_id, (e) => e.callback_type === 'DIRECT_TRANSFER', 'DIRECT_TRANSFER'))).toEqual(['DIRECT_TRANSFER:error']);
  });

  it('refuses an unknown outcome and a production key', async () => {
    const bad = await post({ ...directTransferBody(await createPatient(t, sandboxKey())), simulation: { outcome: 'maybe' } });
    expect(bad.error).toMatchObject({ validation_errors: [{ key: 'simulation.outcome', message: 'must be one of [accept, reject]' }] });
    const production = acme.production_api_key;
    const refused = await post({ ...directTransferBody(await createPatient(t, production)), simulation: { outcome: 'accept' } }, production);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ validation_errors: PRODUCTION_REFUSAL });
  });
});

describe('fill requests: simulation', () => {
  it.each([
    ['triage', ['ORDER:triage'], 'triage'],
    ['error', ['ORDER:error'], 'error'],
    ['returned', ['ORDER:success', 'SHIPMENT:success:IN_TRANSIT', 'SHIPMENT:error:RETURNED'], 'filled'],
    ['fill', ['ORDER:success', 'SHIPMENT:success:IN_TRANSIT', 'SHIPMENT:success:OUT_FOR_DELIVERY', 'SHIPMENT:success:DELIVERED'], 'filled'],
  ])('outcome %s forces the marker\'s events', async (outcome, expected, status) => {
    const { data, response } = await fillRequest({ metadata: 'order-1', simulation: { outcome } });
    expect(response.status).toBe(201);
    const last = expected[expected.length - 1]!;
    const events = await waitForEvent(data!.request_id, (e) => summary([e])[0] === last, last);
    expect(summary(events)).toEqual(expected);
    // The record is the request as submitted: the simulation is not part of it.
    const read = await t.client(sandboxKey()).GET('/v1/fill_request/{url_token}', { params: { path: { url_token: data!.request_id } } });
    expect(read.response.status).toBe(202);
    expect(read.data).not.toHaveProperty('simulation');
    expect(read.data).toMatchObject({ metadata: 'order-1', status });
  });

  describe('a refill held as too soon', () => {
    afterEach(() => resetClock());
    const { patientWithPrescription, submit } = fillRequestSteps(() => ({ t, acme }));

    it('keeps its simulation (not shown on the record) until the scheduler submits it, whose schedule then plays it', async () => {
      const { patient, rx } = await patientWithPrescription({ number_of_refills_allowed: 3, refills_remaining: 3, quantity_remaining: 300 });
      expect((await submit(cashBody(patient, [rx.token]))).response.status).toBe(201);
      const held = await submit(cashBody(patient, [rx.token], { metadata: 'held-1', simulation: { outcome: 'triage' } }));
      expect(held.data).toMatchObject({ status: 'scheduled' });
      const token = held.data!.request_id;
      const read = await t.client(sandboxKey()).GET('/v1/fill_request/{url_token}', { params: { path: { url_token: token } } });
      expect(read.data).toMatchObject({ status: 'scheduled', metadata: 'held-1' });
      expect(read.data).not.toHaveProperty('simulation');
      expect(await stepsOf(token)).toEqual([]);

      advanceClock(23 * 86_400_000);
      await t.app.services.scheduler.tick();
      expect(await stepsOf(token)).toEqual([{ simulation: JSON.stringify({ outcome: 'triage' }) }]);
      expect(summary(await waitForEvent(token, (e) => e.callback_type === 'ORDER', 'ORDER'))).toEqual(['ORDER:triage']);
    });
  });

  it('the simulation wins over a marker; the marker alone still forces its outcome', async () => {
    const both = await fillRequest({ metadata: 'sandbox:error', simulation: { outcome: 'triage' } });
    expect(summary(await waitForEvent(both.data!.request_id, (e) => e.callback_type === 'ORDER', 'ORDER'))).toEqual(['ORDER:triage']);
    const marker = await fillRequest({ metadata: 'sandbox:error' });
    expect(summary(await waitForEvent(marker.data!.request_id, (e) => e.callback_type === 'ORDER', 'ORDER'))).toEqual(['ORDER:error']);
  });

  it('refuses an unknown outcome (naming the allowed ones) and a production key, writing nothing', async () => {
    const bad = await fillRequest({ simulation: { outcome: 'lost', extra: 1 } });
    expect(bad.response.status).toBe(400);
    expect((bad.error as { validation_errors: unknown }).validation_errors).toEqual(
      expect.arrayContaining([
        { key: 'simulation.outcome', message: 'must be one of [fill, triage, error, returned]' },
        { key: 'simulation.extra', message: 'is not allowed' },
      ]),
    );
    const refused = await fillRequest({ metadata: 'prod-sim', simulation: { outcome: 'fill' } }, acme.production_api_key);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ validation_errors: PRODUCTION_REFUSAL });
    expect(await db().selectFrom('fill_requests').select('token').where('metadata', '=', 'prod-sim').execute()).toEqual([]);
  });
});

describe('consults: simulation', () => {
  const post = (body: unknown, key = sandboxKey()) => t.client(key).POST('/consults/v0/consult', { body: body as never });

  it.each([
    ['issue', { status: 'issue' }, 'member-1', ['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open', 'CONSULT:issueCompleted', 'CONSULT_TASK:completed'], 'CONSULT:issueCompleted'],
    ['rejected, over a sandbox:issue marker', { status: 'rejected' }, 'sandbox:issue', ['CONSULT:REVIEW', 'CONSULT:rejected'], 'CONSULT:rejected'],
    ['the marker sandbox:reject alone', undefined, 'sandbox:reject', ['CONSULT:REVIEW', 'CONSULT:rejected'], 'CONSULT:rejected'],
  ])('%s', async (_, simulation, metadata, expected, last) => {
    const body = consultBody(await createPatient(t, sandboxKey()), { questionaire: SAMPLE.intake, metadata, ...(simulation ? { simulation } : {}) });
    const { data, response } = await post(body);
    expect(response.status).toBe(200);
    const events = await eventsUntil((e) => e.details.consult_id === data!.consult, last);
    expect(statuses(events)).toEqual(expected);
  });

  it('refuses an unknown status and a production key', async () => {
    const bad = await post(consultBody(await createPatient(t, sandboxKey()), { questionaire: SAMPLE.intake, simulation: { status: 'issueRejected' } }));
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ validation_errors: [{ key: 'simulation.status', message: 'must be one of [completed, issue, rejected]' }] });
    const production = acme.production_api_key;
    const refused = await post(consultBody(await createPatient(t, production), { simulation: { status: 'completed' } }), production);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ validation_errors: PRODUCTION_REFUSAL });
  });
});

describe('lab orders: simulation', () => {
  it.each([
    ['rejected_fixable', { outcome: 'rejected_fixable' }, {}, true],
    ['rejected, over a sandbox:abnormal marker', { outcome: 'rejected' }, { custom_data_1: 'sandbox:abnormal' }, false],
  ])('%s ends rejected after delivered to lab', async (_, simulation, extra, fixable) => {
    const patient = await createPatient(t, sandboxKey());
    const order = await createOrder(t, sandboxKey(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress, ...extra, simulation });
    const events = await eventsUntil((e) => e.request_id === order.id, 'DIAGNOSTICS_ORDER_REJECTED:REJECTED');
    expect(statuses(events).slice(-2)).toEqual(['DIAGNOSTICS_ORDER_DELIVERED_TO_LAB:DELIVERED_TO_LAB', 'DIAGNOSTICS_ORDER_REJECTED:REJECTED']);
    expect(events.at(-1)).toMatchObject({ status: 'error', details: { rejection: { fixable } } });
  });

  it('abnormal: results out of range, as the marker gives; normal wins over the marker', async () => {
    const patient = await createPatient(t, sandboxKey());
    const orders = await Promise.all([
      createOrder(t, sandboxKey(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress, simulation: { outcome: 'abnormal' } }),
      createOrder(t, sandboxKey(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress, custom_data_2: 'sandbox:abnormal' }),
      createOrder(t, sandboxKey(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress, custom_data_2: 'sandbox:abnormal', simulation: { outcome: 'normal' } }),
    ]);
    const results = [];
    for (const order of orders) {
      await eventsUntil((e) => e.request_id === order.id, 'DIAGNOSTICS_RESULTS_AVAILABLE:RESULTS_AVAILABLE');
      const { data } = await t.client(sandboxKey()).GET('/diagnostics/v0/orders/{order_id}/results', { params: { path: { order_id: order.id } } });
      results.push(JSON.stringify(data).match(/"(high|low|abnormal)"/g)?.length ?? 0);
    }
    expect(results[0]).toBeGreaterThan(0);
    expect(results[0]).toBe(results[1]);
    expect(results[2]).toBe(0);
  });

  it('refuses an unknown outcome and a production key', async () => {
    const patient = await createPatient(t, sandboxKey());
    const post = (body: Record<string, unknown>, key = sandboxKey()) => t.client(key).POST('/diagnostics/v0/orders', { body: body as never });
    const bad = await post({ patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress, simulation: { outcome: 'lost' } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ validation_errors: [{ key: 'simulation.outcome', message: 'must be one of [normal, abnormal, rejected, rejected_fixable]' }] });
    const production = acme.production_api_key;
    const refused = await post({ patient_token: await createPatient(t, production), test_id: TESTS.thyroid, address: shippingAddress, simulation: { outcome: 'normal' } }, production);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ validation_errors: PRODUCTION_REFUSAL });
  });
});

describe('same-day deliveries: simulation', () => {
  async function sameDay(extra: Record<string, unknown>, key = sandboxKey()) {
    const environment = key === sandboxKey() ? 'sandbox' : 'production';
    const patient = await createPatient(t, key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, environment, patient_token: patient });
    const body = {
      patient_token: patient,
      prescription_tokens: [rx.token],
      shipping_address: { name: 'Jane Doe', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107', country: 'US', email: 'jane@example.com' },
      external_location: { ncpdpid: PICKUP.ncpdpid },
      ...extra,
    };
    return t.client(key).POST('/v1/same_day_delivery', { body: body as never });
  }

  it.each([
    ['canceled', { simulation: { outcome: 'canceled' } }, ['SAME_DAY_DELIVERY:CANCELED']],
    ['failed, over a sandbox:incomplete marker', { metadata: 'sandbox:incomplete', simulation: { outcome: 'failed' } }, ['SAME_DAY_DELIVERY:AWAITING_PICKUP', 'SAME_DAY_DELIVERY:IN_TRANSIT', 'SAME_DAY_DELIVERY:FAILED']],
    ['delivered, over a sandbox:canceled marker', { delivery_instruction: 'sandbox:canceled', simulation: { outcome: 'delivered' } }, ['SAME_DAY_DELIVERY:AWAITING_PICKUP', 'SAME_DAY_DELIVERY:IN_TRANSIT', 'SAME_DAY_DELIVERY:DELIVERED']],
    ['the marker sandbox:incomplete alone', { metadata: 'sandbox:incomplete' }, ['SAME_DAY_DELIVERY:AWAITING_PICKUP', 'SAME_DAY_DELIVERY:IN_TRANSIT', 'SAME_DAY_DELIVERY:INCOMPLETE']],
  ])('%s', async (_, extra, expected) => {
    const { data, response } = await sameDay(extra);
    expect(response.status).toBe(201);
    const events = await eventsUntil((e) => e.callback_type === 'SAME_DAY_DELIVERY' && e.details.id === data!.id, expected[expected.length - 1]!);
    expect(statuses(events)).toEqual(expected);
  });

  it('refuses an unknown outcome and a production key', async () => {
    const bad = await sameDay({ simulation: { outcome: 'lost' } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ validation_errors: [{ key: 'simulation.outcome', message: 'must be one of [delivered, canceled, failed, incomplete]' }] });
    const refused = await sameDay({ simulation: { outcome: 'delivered' } }, acme.production_api_key);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ validation_errors: PRODUCTION_REFUSAL });
  });
});

describe('patients: simulation.newRx', () => {
  const person = (over: Record<string, unknown> = {}) => ({ first_name: `Sim${Math.random().toString(36).slice(2, 8)}`, last_name: 'Doe', dob: '19800131', gender: 'female', ...over });
  const put = (body: Record<string, unknown>, key = sandboxKey()) => t.client(key).PUT('/v1/patient', { body: body as never });

  it('true: the new patient gets the default electronic prescription, with its NOTIFY_RX', async () => {
    const { data, response } = await put({ ...person(), simulation: { newRx: true } });
    expect(response.status).toBe(201);
    const [notify, ...more] = await waitFor(async () => { const e = await notifyRxOf(data!.patient_token); return e.length > 0 && e; });
    expect(more).toEqual([]);
    expect(notify!.details).toMatchObject({ patient_token: data!.patient_token, medication_name: 'Atorvastatin 20 mg tablet' });
    const rx = await db().selectFrom('prescriptions').selectAll().where('token', '=', notify!.details.prescription_token).executeTakeFirstOrThrow();
    expect(rx).toMatchObject({ environment: 'sandbox', origin: 'electronic', number_of_refills_allowed: 2 });
  });

  it('an object: the prescription it describes; false and no simulation: none', async () => {
    const newRx = { prescribed_written_name: 'Metformin 500 mg tablet', prescribed_brand_name: 'Glucophage', medication_sig: 'Take 1 tablet twice daily', prescribed_quantity: 60, number_of_refills_allowed: 5, days_supply: 30 };
    const { data } = await put({ ...person(), simulation: { newRx } });
    const [notify] = await waitFor(async () => { const e = await notifyRxOf(data!.patient_token); return e.length > 0 && e; });
    expect(notify!.details).toMatchObject({ medication_name: 'Metformin 500 mg tablet' });
    const rx = await db().selectFrom('prescriptions').selectAll().where('token', '=', notify!.details.prescription_token).executeTakeFirstOrThrow();
    expect(rx).toMatchObject({ medication_name: 'Metformin 500 mg tablet', prescribed_quantity: 60, number_of_refills_allowed: 5, medication_sig: 'Take 1 tablet twice daily' });

    const none = await put({ ...person(), simulation: { newRx: false } });
    const plain = await put(person());
    await new Promise((r) => setTimeout(r, 300));
    expect(await notifyRxOf(none.data!.patient_token)).toEqual([]);
    expect(await notifyRxOf(plain.data!.patient_token)).toEqual([]);
  });

  it('writes the patient and its prescription together: when the prescription fails, no patient is left', async () => {
    const who = person();
    const failing = vi.spyOn(PrescriptionRepository.prototype, 'insert').mockRejectedValueOnce(new Error('the disk is full'));
    try {
      const failed = await put({ ...who, simulation: { newRx: true } });
      expect(failed.response.status).toBe(500);
    } finally {
      failing.mockRestore();
    }
    expect(await db().selectFrom('patients').select('token').where('customer_id', '=', acme.customer_id).where('first_name', '=', who.first_name).execute()).toEqual([]);
    // The same request again succeeds, with one patient and one prescription.
    const { data, response } = await put({ ...who, simulation: { newRx: true } });
    expect(response.status).toBe(201);
    expect((await t.client(sandboxKey()).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: data!.patient_token } } })).response.status).toBe(200);
    expect(await db().selectFrom('prescriptions').select('token').where('patient_token', '=', data!.patient_token).execute()).toHaveLength(1);
  });

  it('refuses a production key (no patient written), an unknown field and a bad value', async () => {
    const who = person();
    const refused = await put({ ...who, simulation: { newRx: true } }, acme.production_api_key);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ validation_errors: PRODUCTION_REFUSAL });
    expect(await db().selectFrom('patients').select('token').where('customer_id', '=', acme.customer_id).where('environment', '=', 'production').where('first_name', '=', who.first_name).execute()).toEqual([]);
    const unknown = await put({ ...person(), simulation: { newRx: { refills_remaining: 2 } } });
    expect(unknown.response.status).toBe(400);
    const stray = await put({ ...person(), simulation: { lab: true } });
    expect(stray.error).toMatchObject({ validation_errors: [{ key: 'simulation.lab', message: 'is not allowed' }] });
    const bad = await put({ ...person(), simulation: { newRx: { prescribed_quantity: 0 } } });
    expect(bad.response.status).toBe(400);
  });
});
