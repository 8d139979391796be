import type { NewCustomer } from '../../src/customers/customer-service.js';
import type { PrescriptionsTable } from '../../src/prescriptions/prescription-tables.js';
import { address, createPatient, insertPrescription } from './fixtures.js';
import type { TestApp } from './test-app.js';

/** A cash fill request of the patient's prescriptions, shipped to `address`, with a survey. */
export function cashBody(patient: string, prescriptions: string[], extra: Record<string, unknown> = {}) {
  return {
    patient_token: patient,
    patient_payment_type: 'cash',
    medications: prescriptions.map((prescription_token) => ({ prescription_token })),
    ...address,
    patient_survey: { allergies: 'None' },
    ...extra,
  };
}

/**
 * The steps of the fill request stories, on the app and for the customer (acme) that `suite`
 * answers once the file's beforeAll has started them.
 */
export function fillRequestSteps(suite: () => { t: TestApp; acme: NewCustomer }) {
  const db = () => suite().t.database.handle.db;
  return {
    /** A patient of acme (sandbox) with one fillable prescription. */
    async patientWithPrescription(
      over: Partial<PrescriptionsTable> = {},
      customer: NewCustomer = suite().acme,
    ): Promise<{ patient: string; rx: PrescriptionsTable }> {
      const patient = await createPatient(suite().t, customer.sandbox_api_key);
      const rx = await insertPrescription(suite().t, { customer_id: customer.customer_id, patient_token: patient }, over);
      return { patient, rx };
    },

    async submit(body: Record<string, unknown>, key = suite().acme.sandbox_api_key) {
      return suite().t.client(key).POST('/v1/fill_request', { body: body as never });
    },

    async readPrescription(token: string): Promise<PrescriptionsTable> {
      return db().selectFrom('prescriptions').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
    },

    async countRows(table: 'fill_requests' | 'insurances' | 'copay_requests', patient: string): Promise<number> {
      const rows = await db().selectFrom(table).select('token').where('patient_token', '=', patient).execute();
      return rows.length;
    },
  };
}
