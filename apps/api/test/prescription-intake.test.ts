import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import type { Owner } from '../src/auth/principal.js';
import { createPatient, jane } from './support/fixtures.js';
import { startStaffApp, type StaffActions } from './support/staff-actions.js';
import type { TestApp } from './support/test-app.js';

/** Electronic prescriptions received by the pharmacy (prescriptions/prescription-intake.ts). */
let t: TestApp;
let acme: NewCustomer;
let staff: StaffActions;

beforeAll(async () => {
  ({ t, acme, staff } = await startStaffApp());
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;
const intake = () => t.app.services.prescriptionIntake;

describe('electronic prescriptions', () => {
  it('NOTIFY_RX with the new prescription; look-alike patients (same names and birth date, other gender) are duplicates', async () => {
    const owner: Owner = { customerId: acme.customer_id, environment: 'production' };
    const first_name = `Dup${Date.now()}`;
    const patient = await createPatient(t, key(), { first_name });
    const lookAlike = await createPatient(t, key(), { first_name, gender: 'male' });
    const unrelated = await createPatient(t, key());
    const before = await staff.eventCount();

    const received = await staff.act((uow) => intake().receiveElectronic(uow, owner, patient, { medication_name: 'Lisinopril 10 mg tablet' }));
    expect(received.patient_token_duplicates).toEqual([lookAlike]);
    const alone = await staff.act((uow) => intake().receiveElectronic(uow, owner, unrelated, { medication_name: 'Lisinopril 10 mg tablet' }));
    expect(alone.patient_token_duplicates).toEqual([]);

    const events = await staff.newEvents(before);
    expect(events.map((e) => e.details.prescription_token)).toEqual([received.prescription_token, alone.prescription_token]);
    expect(events[0]!.details.patient_token_duplicates).toEqual([lookAlike]);
    expect(jane.dob).toBeDefined();
  });

  it('refuses a patient of another environment as the patients service does', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    await expect(
      staff.act((uow) => intake().receiveElectronic(uow, { customerId: acme.customer_id, environment: 'production' }, patient, { medication_name: 'X' })),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('the quantities of a prescription', () => {
  const owner = (): Owner => ({ customerId: acme.customer_id, environment: 'production' });
  const read = (token: string) => t.client(key()).GET('/v1/prescription/{token}', { params: { path: { token } } });

  it.each([
    ['the largest the sandbox prescriber sends (10,000 per fill, 99 refills)', 10_000, 99, 1_000_000],
    ['the largest any source may bring (100,000 per fill, 99 refills)', 100_000, 99, 10_000_000],
  ])('%s read back within the read schemas', async (_name, quantity, refills, remaining) => {
    const patient = await createPatient(t, key());
    const rx = await staff.act((uow) => intake().receive(uow, owner(), patient, { medication_name: 'Big', quantity, refills }, 'electronic'));
    // The typed client validates every answer against the spec: a quantity over its maximum would fail here.
    const { data } = await read(rx.token);
    expect(data!.prescription).toMatchObject({ prescribed_quantity: quantity, number_of_refills_allowed: refills, quantity_remaining: remaining });
    const list = await t.client(key()).GET('/v1/patient/{patient_token}/prescriptions', { params: { path: { patient_token: patient } } });
    expect(list.data!.prescriptions[0]).toMatchObject({ quantity_remaining: remaining });
  });

  it('sent by the sandbox prescriber at its maximum read back within the read schema', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    const sent = await t.client(acme.sandbox_api_key).POST('/v1/sandbox/electronic_prescriptions', {
      body: { patient_token: patient, quantity: 10_000, refills: 99 },
    });
    const rx = await t.client(acme.sandbox_api_key).GET('/v1/prescription/{token}', { params: { path: { token: sent.data!.prescription_token } } });
    expect(rx.data!.prescription).toMatchObject({ quantity_remaining: 1_000_000 });
  });

  it.each([
    ['a quantity over 100,000', { quantity: 100_001 }, /quantity must be a whole number from 1 to 100000/],
    ['a quantity of zero', { quantity: 0 }, /quantity must be a whole number from 1 to 100000/],
    ['more than 99 refills', { refills: 100 }, /refills must be a whole number from 0 to 99/],
  ])('are refused beyond the read schema: %s', async (_name, over, message) => {
    const patient = await createPatient(t, key());
    await expect(
      staff.act((uow) => intake().receive(uow, owner(), patient, { medication_name: 'Too big', ...over }, 'electronic')),
    ).rejects.toMatchObject({ code: 'INVALID', message: expect.stringMatching(message) });
  });
});
