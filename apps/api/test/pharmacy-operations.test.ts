import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { SimpleTransactor } from '../src/db/transactor.js';
import { EventOutbox } from '../src/events/event-outbox.js';
import { OperationError, PharmacyOperations } from '../src/operations/pharmacy-operations.js';
import { TRANSFER_REJECTION_CODES, TRANSFER_REJECTIONS } from '../src/operations/rejection-codes.js';
import { eventProblems, eventsOf, type StoredEvent } from './support/event-schemas.js';
import { createPatient, destination, insertPrescription, jane } from './support/fixtures.js';
import { directTransferBody, pharmacyEnv, transferBody } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * What pharmacy staff do, on production records (the sandbox's simulator leaves them alone):
 * each action changes state and records its events in one unit of work.
 */
let t: TestApp;
let acme: NewCustomer;
let ops: PharmacyOperations;

beforeAll(async () => {
  t = await startTestApp({ ...pharmacyEnv, PHARMACY_LOCATION: 'Denver, CO' });
  acme = await t.customer('Acme');
  ops = t.app.services.operations;
});
afterAll(async () => t?.close());

const db = () => t.database.handle.db;
const key = () => acme.production_api_key;

/** The events recorded since `before` events existed, each checked against its schema. */
async function newEvents(before: number): Promise<StoredEvent[]> {
  const events = (await eventsOf(db(), acme.customer_id)).slice(before);
  for (const e of events) expect(eventProblems(e), `${e.callback_type} ${e.status ?? ''}`).toEqual([]);
  return events;
}
const eventCount = async () => (await eventsOf(db(), acme.customer_id)).length;

async function createTransfer(medications: string[] | undefined, extra: Record<string, unknown> = {}) {
  const patient = await createPatient(t, key());
  const { data, response } = await t.client(key()).POST('/v1/transfer_request', {
    body: transferBody(patient, medications, extra) as never,
  });
  expect(response.status).toBe(201);
  return { patient, token: data!.details.transfer_token, medications: data!.details.transfer_medications };
}

const rxInput = (name: string) => ({ medication_name: name, quantity: 30, days_supply: 30, refills: 3, prescriber: 'Dr. Jordan Lee' });

describe('transfers', () => {
  it('a transfer of N medications: TRANSFER_CONTACT, then one NOTIFY_RX per transferred prescription and one TRANSFER', async () => {
    const { patient, token, medications } = await createTransfer(['Lisinopril', 'Metformin', 'Atorvastatin']);
    const before = await eventCount();

    const contacted = await ops.contactTransfer(token, { contact_method: 'fax' });
    expect(contacted).toMatchObject({ status: 'success', contact_name: 'Main Street Pharmacy', contact_number: '5125550101' });

    const done = await ops.completeTransfer(token, [
      { transfer_medication_token: medications[0]!.transfer_medication_token, prescription: rxInput('Lisinopril 10 mg tablet') },
      { transfer_medication_token: medications[1]!.transfer_medication_token, prescription: rxInput('Metformin 500 mg tablet') },
      { transfer_medication_token: medications[2]!.transfer_medication_token, rejection: { code: 'RX_NO_REFILLS' } },
    ]);
    expect(done.status).toBe('completed');

    const events = await newEvents(before);
    expect(events.map((e) => `${e.callback_type}:${e.status ?? '-'}`)).toEqual([
      'TRANSFER_CONTACT:success',
      'NOTIFY_RX:-',
      'NOTIFY_RX:-',
      'TRANSFER:success',
    ]);
    const [contact, rx1, rx2, transfer] = events as [StoredEvent, StoredEvent, StoredEvent, StoredEvent];
    expect(contact).toMatchObject({ request_id: token, details: { transfer_token: token, contact_method: 'fax', patient_token: patient, metadata: 'order-10045' } });
    expect([rx1.details.prescription_token, rx2.details.prescription_token]).toEqual(done.prescription_tokens);
    expect(rx1.details).toMatchObject({ patient_token: patient, location: 'Denver, CO', patient_token_duplicates: [], merged_patients: [] });
    expect(rx1).not.toHaveProperty('request_id');
    expect(transfer.request_id).toBe(token);
    expect(transfer.details.medications.map((m: any) => m.requested_medication_name)).toEqual(['Lisinopril', 'Metformin']);

    const { data } = await t.client(key()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    const record = data![0]!;
    expect(record.status).toBe('completed');
    expect(record.transfer_medications.map((m) => m.rejection_reason)).toEqual([null, null, 'RX_NO_REFILLS']);
    expect(record.transfer_medications[0]!.prescription?.url_token).toBe(done.prescription_tokens[0]);
    expect(record.messages.length).toBeGreaterThanOrEqual(2);

    const rx = await t.client(key()).GET('/v1/prescription/{token}', { params: { path: { token: done.prescription_tokens[0]! } } });
    expect(rx.response.status).toBe(200);
  });

  it('a transfer of every medication records the medications the other party reports', async () => {
    const { token } = await createTransfer(undefined);
    const before = await eventCount();
    const done = await ops.completeTransfer(token, [{ prescription: rxInput('Amlodipine 5 mg tablet') }]);
    const events = await newEvents(before);
    expect(events.map((e) => e.callback_type)).toEqual(['NOTIFY_RX', 'TRANSFER']);
    expect(events[1]!.details.medications[0]).toMatchObject({ requested_medication_name: 'Amlodipine 5 mg tablet', prescription_token: done.prescription_tokens[0] });
  });

  it.each([
    ['a transfer no longer pending', 'phone', 'TRANSFER_NOT_PENDING', true],
    ['an unsupported contact method', 'email', 'CONTACT_METHOD_UNSUPPORTED', false],
  ] as const)('a contact attempt for %s: TRANSFER_CONTACT error %s', async (_what, method, code, rejectFirst) => {
    const { token } = await createTransfer(['Lisinopril']);
    if (rejectFirst) await ops.rejectTransfer(token, 'PHARMACY_DECLINED');
    const before = await eventCount();
    const result = await ops.contactTransfer(token, { contact_method: method });
    expect(result).toMatchObject({ status: 'error', error_code: code });
    const [event] = await newEvents(before);
    expect(event).toMatchObject({ callback_type: 'TRANSFER_CONTACT', status: 'error', request_id: token, details: { error_code: code, transfer_token: token } });
    expect(event!.details).not.toHaveProperty('patient_token');
  });

  it('a fax contact of a transfer without a fax number is an unsupported method', async () => {
    const { token } = await createTransfer(['Lisinopril'], { pharmacy_fax: undefined });
    const result = await ops.contactTransfer(token, { contact_method: 'fax' });
    expect(result).toMatchObject({ status: 'error', error_code: 'CONTACT_METHOD_UNSUPPORTED' });
  });

  it.each(TRANSFER_REJECTION_CODES)('a transfer rejected with %s: TRANSFER error with its code and description', async (code) => {
    const { patient, token } = await createTransfer(['Lisinopril', 'Metformin']);
    const before = await eventCount();
    const specifics = code === 'TRANSFER_OTHER_REASON' ? 'The pharmacy closed permanently.' : undefined;
    await ops.rejectTransfer(token, code, specifics);
    const events = await newEvents(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      callback_type: 'TRANSFER',
      status: 'error',
      request_id: token,
      details: { error_code: code, description: TRANSFER_REJECTIONS[code], patient_token: patient, metadata: 'order-10045' },
    });
    expect(events[0]!.details.message).toBe(specifics ?? `Transfer rejected: ${TRANSFER_REJECTIONS[code]}.`);
    const { data } = await t.client(key()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    expect(data![0]).toMatchObject({ status: 'rejected', cancel_reason: code, cancel_reason_other: specifics ?? null });
    expect(data![0]!.transfer_medications.every((m) => m.rejection_reason === code)).toBe(true);
  });

  it('a transfer whose every medication is refused ends with a TRANSFER error of the first code', async () => {
    const { token, medications } = await createTransfer(['Lisinopril', 'Metformin']);
    const before = await eventCount();
    await ops.completeTransfer(token, [
      { transfer_medication_token: medications[0]!.transfer_medication_token, rejection: { code: 'RX_EXPIRED' } },
      { transfer_medication_token: medications[1]!.transfer_medication_token, rejection: { code: 'RX_IS_DAW' } },
    ]);
    const events = await newEvents(before);
    expect(events.map((e) => [e.callback_type, e.status, e.details.error_code])).toEqual([['TRANSFER', 'error', 'RX_EXPIRED']]);
  });

  it.each([
    ['a message with a code other than TRANSFER_OTHER_REASON', (token: string) => ops.rejectTransfer(token, 'RX_EXPIRED', 'why')],
    ['an unknown code', (token: string) => ops.rejectTransfer(token, 'NOPE' as never)],
    ['a transfer already rejected', async (token: string) => {
      await ops.rejectTransfer(token, 'RX_EXPIRED');
      return ops.rejectTransfer(token, 'RX_EXPIRED');
    }],
  ])('refuses %s', async (_what, act) => {
    const { token } = await createTransfer(['Lisinopril']);
    await expect(act(token)).rejects.toBeInstanceOf(OperationError);
  });
});

describe('state and events are written together', () => {
  it('an action refused halfway writes neither the prescriptions nor any event', async () => {
    const { token, medications } = await createTransfer(['Lisinopril', 'Metformin']);
    const before = await eventCount();
    const prescriptions = async () => (await db().selectFrom('prescriptions').select('token').where('customer_id', '=', acme.customer_id).execute()).length;
    const rxBefore = await prescriptions();
    // The first outcome stores a prescription; the second is invalid, so the whole unit rolls back.
    await expect(
      ops.completeTransfer(token, [
        { transfer_medication_token: medications[0]!.transfer_medication_token, prescription: rxInput('Lisinopril 10 mg tablet') },
        { transfer_medication_token: medications[1]!.transfer_medication_token, rejection: { code: 'BOGUS' as never } },
      ]),
    ).rejects.toBeInstanceOf(OperationError);
    // A medication left without an outcome is refused too.
    await expect(
      ops.completeTransfer(token, [{ transfer_medication_token: medications[0]!.transfer_medication_token, prescription: rxInput('x') }]),
    ).rejects.toThrow(/needs an outcome/);
    expect(await prescriptions()).toBe(rxBefore);
    expect(await eventCount()).toBe(before);
    const { data } = await t.client(key()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    expect(data![0]!.status).toBe('pending');
  });

  it('when the event cannot be recorded, the state change is not written either', async () => {
    const { token } = await createTransfer(['Lisinopril']);
    const failingOutbox = Object.assign(new EventOutbox(), {
      record: async () => {
        throw new Error('outbox unavailable');
      },
    });
    const deps = { db: db(), transactor: new SimpleTransactor(db()), config: t.app.services.operations['deps'].config, patients: t.app.services.patients, outbox: failingOutbox };
    const broken = new PharmacyOperations(deps, t.app.services.orders);
    await expect(broken.rejectTransfer(token, 'PHARMACY_DECLINED')).rejects.toThrow('outbox unavailable');
    const { data } = await t.client(key()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    expect(data![0]).toMatchObject({ status: 'pending', cancel_reason: null });
  });
});

describe('direct transfers', () => {
  async function createDirectTransfer(): Promise<{ patient: string; token: string }> {
    const patient = await createPatient(t, key());
    const { data, response } = await t.client(key()).POST('/v1/direct_transfer', {
      body: directTransferBody(patient) as never,
    });
    expect(response.status).toBe(201);
    return { patient, token: data!.details.direct_transfer_id };
  }

  it('accepting: the prescription is created, then NOTIFY_RX and DIRECT_TRANSFER success', async () => {
    const { patient, token } = await createDirectTransfer();
    const before = await eventCount();
    const result = await ops.acceptDirectTransfer(token);
    const events = await newEvents(before);
    expect(events.map((e) => `${e.callback_type}:${e.status ?? '-'}`)).toEqual(['NOTIFY_RX:-', 'DIRECT_TRANSFER:success']);
    expect(events[0]!.details).toMatchObject({ prescription_token: result.prescription_token, patient_token: patient, prescriber: 'Alex Smith' });
    expect(events[1]).toMatchObject({ request_id: token, details: { direct_transfer_token: token, prescription_token: result.prescription_token } });
    const rx = await db().selectFrom('prescriptions').selectAll().where('token', '=', result.prescription_token).executeTakeFirstOrThrow();
    expect(rx).toMatchObject({ patient_token: patient, medication_name: 'Atorvastatin 20 mg tablet', refills_remaining: 4, origin: 'direct_transfer' });
    const read = await t.client(key()).GET('/v1/direct_transfer/{direct_transfer_token}', { params: { path: { direct_transfer_token: token } } });
    expect(read.response.status).toBe(200);
    expect(JSON.stringify(read.data)).toContain('accepted');
    await expect(ops.rejectDirectTransfer(token, 'too late')).rejects.toMatchObject({ code: 'NOT_PENDING' });
  });

  it('rejecting: only a DIRECT_TRANSFER error whose message starts with the rejection notice', async () => {
    const { token } = await createDirectTransfer();
    const before = await eventCount();
    await ops.rejectDirectTransfer(token, 'the prescription has no refills left to transfer');
    const events = await newEvents(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ callback_type: 'DIRECT_TRANSFER', status: 'error', request_id: token });
    expect(events[0]!.details.message).toBe('Direct transfer rejected: the prescription has no refills left to transfer.');
    await expect(ops.acceptDirectTransfer(token)).rejects.toMatchObject({ code: 'NOT_PENDING' });
    expect(await eventCount()).toBe(before + 1);
  });
});

describe('electronic prescriptions', () => {
  it('NOTIFY_RX with the new prescription; look-alike patients (same names and birth date, other gender) are duplicates', async () => {
    const owner: Owner = { customerId: acme.customer_id, environment: 'production' };
    const first_name = `Dup${Date.now()}`;
    const patient = await createPatient(t, key(), { first_name });
    const lookAlike = await createPatient(t, key(), { first_name, gender: 'male' });
    const unrelated = await createPatient(t, key());
    const before = await eventCount();

    const received = await ops.receiveElectronicPrescription(owner, patient, { medication_name: 'Lisinopril 10 mg tablet' });
    expect(received.patient_token_duplicates).toEqual([lookAlike]);
    const alone = await ops.receiveElectronicPrescription(owner, unrelated, { medication_name: 'Lisinopril 10 mg tablet' });
    expect(alone.patient_token_duplicates).toEqual([]);

    const events = await newEvents(before);
    expect(events.map((e) => e.details.prescription_token)).toEqual([received.prescription_token, alone.prescription_token]);
    expect(events[0]!.details.patient_token_duplicates).toEqual([lookAlike]);
    expect(jane.dob).toBeDefined();
  });

  it('refuses a patient of another environment as the patients service does', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    await expect(
      ops.receiveElectronicPrescription({ customerId: acme.customer_id, environment: 'production' }, patient, { medication_name: 'X' }),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('fill requests, orders and shipments', () => {
  async function fillRequest(ndc: string | null = '00071015523'): Promise<{ token: string; patient: string; rx: string }> {
    const patient = await createPatient(t, key());
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: patient }, { prescribed_ndc: ndc });
    const { patient_survey: _s, ...address } = destination;
    const { data, response } = await t.client(key()).POST('/v1/fill_request', {
      body: {
        patient_token: patient,
        patient_payment_type: 'cash',
        medications: [{ prescription_token: rx.token }],
        ...address,
        patient_survey: {},
        metadata: 'order-10046',
      } as never,
    });
    expect(response.status).toBe(201);
    return { token: data!.request_id, patient, rx: rx.token };
  }

  it('dispense: the order and ORDER success; shipments: SHIPMENT events to DELIVERED, the order shipped then delivered', async () => {
    const { token, patient, rx } = await fillRequest();
    const before = await eventCount();
    const dispensed = await ops.dispenseFill(token);
    const order = dispensed.order_token;
    await ops.recordShipment(order, 'IN_TRANSIT');
    const shipped = await t.client(key()).GET('/v1/order/{token}', { params: { path: { token: order } } });
    expect(shipped.data).toMatchObject({ status: 'shipped', carrier: 'USPS' });
    await ops.recordShipment(order, 'OUT_FOR_DELIVERY');
    await ops.recordShipment(order, 'DELIVERED');
    const delivered = await t.client(key()).GET('/v1/order/{token}', { params: { path: { token: order } } });
    expect(delivered.data).toMatchObject({ status: 'delivered' });

    const events = await newEvents(before);
    expect(events.map((e) => `${e.callback_type}:${e.status}:${e.details.status ?? ''}`)).toEqual([
      'ORDER:success:',
      'SHIPMENT:success:IN_TRANSIT',
      'SHIPMENT:success:OUT_FOR_DELIVERY',
      'SHIPMENT:success:DELIVERED',
    ]);
    const orderEvent = events[0]!;
    expect(orderEvent).toMatchObject({ request_id: token, details: { order_token: order, patient_token: patient, metadata: 'order-10046', tracking_number: null } });
    expect(orderEvent.details.medications[0]).toMatchObject({
      prescription_token: rx,
      fill_number: 0,
      dispensed_ndc: '00071015523',
      remaining_refills: { total_remaining_refills: 2, total_quantity_remaining: 60 },
    });
    const tracking = events[1]!.details.tracking_number;
    expect(events.slice(1).every((e) => e.details.tracking_number === tracking && e.request_id === token)).toBe(true);
    expect(events[3]!.details.eta).toBeNull();

    await expect(ops.recordShipment(order, 'IN_TRANSIT')).rejects.toMatchObject({ code: 'NOT_PENDING' });
    await expect(ops.dispenseFill(token)).rejects.toMatchObject({ code: 'NOT_PENDING' });
  });

  it('a prescription without a usable NDC is dispensed with the unknown NDC, so the event stays valid', async () => {
    const { token } = await fillRequest(null);
    const before = await eventCount();
    await ops.dispenseFill(token);
    const [event] = await newEvents(before);
    expect(event!.details.medications[0].dispensed_ndc).toMatch(/^[0-9-]{10,13}$/);
  });

  it.each([['triage'], ['error']] as const)('a fill request held (%s): ORDER with that status, no order', async (status) => {
    const { token } = await fillRequest();
    const before = await eventCount();
    if (status === 'triage') await ops.triageFill(token);
    else await ops.failFill(token, 'Out of stock.');
    const [event] = await newEvents(before);
    expect(event).toMatchObject({ callback_type: 'ORDER', status, request_id: token, details: { date_filled: null, medications: [] } });
    const { data } = await t.client(key()).GET('/v1/fill_request/{url_token}', { params: { path: { url_token: token } } });
    expect(data!.status).toBe(status);
  });
});
