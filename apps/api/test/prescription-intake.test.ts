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
