import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { SimpleTransactor, type Transactor } from '../src/db/transactor.js';
import { LifecycleError } from '../src/errors.js';
import { UnitsOfWork } from '../src/events/unit-of-work.js';
import { TRANSFER_REJECTIONS, type TransferRejectionCode } from '../src/transfers/rejection-codes.js';
import type { StoredEvent } from './support/event-schemas.js';
import { createPatient } from './support/fixtures.js';
import { transferBody } from './support/lifecycle-fixtures.js';
import { startStaffApp, type StaffActions } from './support/staff-actions.js';
import type { TestApp } from './support/test-app.js';

const REJECTION_CODES = Object.keys(TRANSFER_REJECTIONS) as TransferRejectionCode[];

/**
 * What pharmacy staff do with a transfer request, on production records (the sandbox's
 * simulator leaves them alone): each action changes state and records its events in one
 * unit of work (transfers/transfer-lifecycle.ts).
 */
let t: TestApp;
let acme: NewCustomer;
let staff: StaffActions;

beforeAll(async () => {
  ({ t, acme, staff } = await startStaffApp());
});
afterAll(async () => t?.close());

const db = () => t.database.handle.db;
const key = () => acme.production_api_key;
const transfers = () => t.app.services.transferLifecycle;

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
    const before = await staff.eventCount();

    const contacted = await staff.act((uow) => transfers().contact(uow, token, { contact_method: 'fax' }));
    expect(contacted).toMatchObject({ status: 'success', contact_name: 'Main Street Pharmacy', contact_number: '5125550101' });

    const done = await staff.act((uow) => transfers().complete(uow, token, [
      { transfer_medication_token: medications[0]!.transfer_medication_token, prescription: rxInput('Lisinopril 10 mg tablet') },
      { transfer_medication_token: medications[1]!.transfer_medication_token, prescription: rxInput('Metformin 500 mg tablet') },
      { transfer_medication_token: medications[2]!.transfer_medication_token, rejection: { code: 'RX_NO_REFILLS' } },
    ]));
    expect(done.status).toBe('completed');

    const events = await staff.newEvents(before);
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
    const before = await staff.eventCount();
    const done = await staff.act((uow) => transfers().complete(uow, token, [{ prescription: rxInput('Amlodipine 5 mg tablet') }]));
    const events = await staff.newEvents(before);
    expect(events.map((e) => e.callback_type)).toEqual(['NOTIFY_RX', 'TRANSFER']);
    expect(events[1]!.details.medications[0]).toMatchObject({ requested_medication_name: 'Amlodipine 5 mg tablet', prescription_token: done.prescription_tokens[0] });
  });

  it.each([
    ['a transfer no longer pending', 'phone', 'TRANSFER_NOT_PENDING', true],
    ['an unsupported contact method', 'email', 'CONTACT_METHOD_UNSUPPORTED', false],
  ] as const)('a contact attempt for %s: TRANSFER_CONTACT error %s', async (_what, method, code, rejectFirst) => {
    const { token } = await createTransfer(['Lisinopril']);
    if (rejectFirst) await staff.act((uow) => transfers().reject(uow, token, 'PHARMACY_DECLINED'));
    const before = await staff.eventCount();
    const result = await staff.act((uow) => transfers().contact(uow, token, { contact_method: method }));
    expect(result).toMatchObject({ status: 'error', error_code: code });
    const [event] = await staff.newEvents(before);
    expect(event).toMatchObject({ callback_type: 'TRANSFER_CONTACT', status: 'error', request_id: token, details: { error_code: code, transfer_token: token } });
    expect(event!.details).not.toHaveProperty('patient_token');
  });

  it('a fax contact of a transfer without a fax number is an unsupported method', async () => {
    const { token } = await createTransfer(['Lisinopril'], { pharmacy_fax: undefined });
    const result = await staff.act((uow) => transfers().contact(uow, token, { contact_method: 'fax' }));
    expect(result).toMatchObject({ status: 'error', error_code: 'CONTACT_METHOD_UNSUPPORTED' });
  });

  it.each(REJECTION_CODES)('a transfer rejected with %s: TRANSFER error with its code and description', async (code) => {
    const { patient, token } = await createTransfer(['Lisinopril', 'Metformin']);
    const before = await staff.eventCount();
    const specifics = code === 'TRANSFER_OTHER_REASON' ? 'The pharmacy closed permanently.' : undefined;
    await staff.act((uow) => transfers().reject(uow, token, code, specifics));
    const events = await staff.newEvents(before);
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
    const before = await staff.eventCount();
    await staff.act((uow) => transfers().complete(uow, token, [
      { transfer_medication_token: medications[0]!.transfer_medication_token, rejection: { code: 'RX_EXPIRED' } },
      { transfer_medication_token: medications[1]!.transfer_medication_token, rejection: { code: 'RX_IS_DAW' } },
    ]));
    const events = await staff.newEvents(before);
    expect(events.map((e) => [e.callback_type, e.status, e.details.error_code])).toEqual([['TRANSFER', 'error', 'RX_EXPIRED']]);
  });

  it.each([
    ['a message with a code other than TRANSFER_OTHER_REASON', (token: string) => staff.act((uow) => transfers().reject(uow, token, 'RX_EXPIRED', 'why'))],
    ['an unknown code', (token: string) => staff.act((uow) => transfers().reject(uow, token, 'NOPE' as never))],
    ['a transfer already rejected', async (token: string) => {
      await staff.act((uow) => transfers().reject(uow, token, 'RX_EXPIRED'));
      return staff.act((uow) => transfers().reject(uow, token, 'RX_EXPIRED'));
    }],
  ])('refuses %s', async (_what, refused) => {
    const { token } = await createTransfer(['Lisinopril']);
    await expect(refused(token)).rejects.toBeInstanceOf(LifecycleError);
  });
});

describe('state and events are written together', () => {
  it('an action refused halfway writes neither the prescriptions nor any event', async () => {
    const { token, medications } = await createTransfer(['Lisinopril', 'Metformin']);
    const before = await staff.eventCount();
    const prescriptions = async () => (await db().selectFrom('prescriptions').select('token').where('customer_id', '=', acme.customer_id).execute()).length;
    const rxBefore = await prescriptions();
    // The first outcome stores a prescription; the second is invalid, so the whole unit rolls back.
    await expect(
      staff.act((uow) => transfers().complete(uow, token, [
        { transfer_medication_token: medications[0]!.transfer_medication_token, prescription: rxInput('Lisinopril 10 mg tablet') },
        { transfer_medication_token: medications[1]!.transfer_medication_token, rejection: { code: 'BOGUS' as never } },
      ])),
    ).rejects.toBeInstanceOf(LifecycleError);
    // A medication left without an outcome is refused too.
    await expect(
      staff.act((uow) => transfers().complete(uow, token, [{ transfer_medication_token: medications[0]!.transfer_medication_token, prescription: rxInput('x') }])),
    ).rejects.toThrow(/needs an outcome/);
    expect(await prescriptions()).toBe(rxBefore);
    expect(await staff.eventCount()).toBe(before);
    const { data } = await t.client(key()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    expect(data![0]!.status).toBe('pending');
  });

  it('when the event cannot be recorded, the state change is not written either', async () => {
    const { token } = await createTransfer(['Lisinopril']);
    // The events table refuses the write; the transfer's own writes went through the same transaction.
    const real = new SimpleTransactor(db());
    const failingOutbox: Transactor = {
      run: (work) =>
        real.run((trx) =>
          work(
            new Proxy(trx, {
              get(target, property) {
                const value = Reflect.get(target, property, target);
                // An insert into events, built by the query builder or sent compiled (insertRows).
                if (property === 'insertInto') {
                  return (table: string) => {
                    if (table === 'events') throw new Error('outbox unavailable');
                    return value.call(target, table);
                  };
                }
                if (property === 'executeQuery') {
                  return (query: { sql: string }) => {
                    if (query.sql.startsWith('insert into "events"')) throw new Error('outbox unavailable');
                    return value.call(target, query);
                  };
                }
                return typeof value === 'function' ? value.bind(target) : value;
              },
            }),
          ),
        ),
    };
    await expect(
      new UnitsOfWork(failingOutbox).run('test', (uow) => transfers().reject(uow, token, 'PHARMACY_DECLINED')),
    ).rejects.toThrow('outbox unavailable');
    const { data } = await t.client(key()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    expect(data![0]).toMatchObject({ status: 'pending', cancel_reason: null });
  });
});
