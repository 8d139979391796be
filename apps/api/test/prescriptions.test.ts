import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
let patient: string;

beforeAll(async () => {
  t = await startTestApp();
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
  patient = await createPatient(t, acme.sandbox_api_key);
});
afterAll(async () => t?.close());

function getPrescription(key: string, token: string, options?: { alias?: boolean }) {
  return t.client(key, options).GET('/v1/prescription/{token}', { params: { path: { token } } });
}

describe('reading a prescription', () => {
  it('answers every field of the prescription under the key `prescription`', async () => {
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, { rx_number: '6001234' });
    const { data, response } = await getPrescription(acme.sandbox_api_key, rx.token);
    expect(response.status).toBe(200);
    expect(data).toEqual({
      prescription: {
        prescription_token: rx.token,
        rx_number: '6001234',
        fillable: true,
        prescribed_brand_name: 'Lipitor',
        prescribed_generic_name: 'Atorvastatin',
        prescribed_ndc: '00071015523',
        prescribed_quantity: 30,
        prescribed_written_name: 'Atorvastatin 20 mg tablet',
        prescribed_drug_strength: '20 mg',
        prescribed_quantity_unit: 'tablet',
        original_prescribed_ndc: null,
        medication_sig: 'Take 1 tablet by mouth daily',
        days_supply: '30',
        date_written: '2026-01-02T00:00:00.000Z',
        expiration_date: '2099-01-01T00:00:00.000Z',
        date_filled_utc: null,
        last_filled_date: null,
        refills_remaining: 2,
        quantity_remaining: 90,
        number_of_refills_allowed: 2,
        is_refill: false,
        is_daw: false,
        dea_schedule: 0,
        origin: 'electronic',
        prescriber: 'Dr. Alex Smith',
        prescriber_npi: '1234567893',
        prescriber_token: null,
        prescriber_order_number: 'ORD-1',
        notes: null,
        prescriber_address: {
          name: 'Dr. Alex Smith',
          company: 'Bayview Family Medicine',
          street1: '500 Howard St',
          street2: null,
          city: 'San Francisco',
          state: 'CA',
          zip: '94105',
          country: 'US',
          phone: '4155550123',
          email: 'office@bayviewfm.example.com',
        },
        icd_codes: { icd10: ['E78.5'], icd9: [] },
        formulary: { on_formulary: true, formulary_ndc: '00071015523' },
        current_rx_status_text: null,
      },
    });
  });

  it('presents a historical prescription: no DAW flag, a controlled schedule, notes, both code systems, off formulary', async () => {
    const rx = await insertPrescription(
      t,
      { customer_id: acme.customer_id, patient_token: patient },
      {
        is_daw: null,
        dea_schedule: 2,
        notes: 'Verified with prescriber.',
        is_refill: 1,
        icd10_codes: '["F90.0","F90.1"]',
        icd9_codes: '["314.01"]',
        on_formulary: 0,
        formulary_ndc: null,
        date_filled_utc: '2026-01-05T10:00:00.000Z',
        last_filled_date: '2026-02-05T10:00:00.000Z',
        current_rx_status_text: 'Active',
      },
    );
    const { data } = await getPrescription(acme.sandbox_api_key, rx.token);
    expect(data!.prescription).toMatchObject({
      is_daw: null,
      dea_schedule: 2,
      notes: 'Verified with prescriber.',
      is_refill: true,
      icd_codes: { icd10: ['F90.0', 'F90.1'], icd9: ['314.01'] },
      formulary: { on_formulary: false, formulary_ndc: null },
      date_filled_utc: '2026-01-05T10:00:00.000Z',
      last_filled_date: '2026-02-05T10:00:00.000Z',
      current_rx_status_text: 'Active',
    });
  });

  it('answers empty strings for prescriber address parts the pharmacy does not know', async () => {
    const rx = await insertPrescription(
      t,
      { customer_id: acme.customer_id, patient_token: patient },
      {
        prescriber_address_name: null,
        prescriber_address_company: null,
        prescriber_address_street1: null,
        prescriber_address_city: null,
        prescriber_address_state: null,
        prescriber_address_zip: null,
        prescriber_address_country: null,
        prescriber_address_phone: null,
        prescriber_address_email: null,
      },
    );
    const { data } = await getPrescription(acme.sandbox_api_key, rx.token);
    expect(data!.prescription.prescriber_address).toEqual({
      name: 'Dr. Alex Smith',
      company: null,
      street1: '',
      street2: null,
      city: '',
      state: '',
      zip: '',
      country: '',
      phone: '',
      email: '',
    });
  });

  it.each([
    ['an active prescription with quantity left', {}, true],
    ['an expired prescription', { expiration_date_utc: '2020-01-01T00:00:00.000Z' }, false],
    ['a prescription transferred out', { status: 'transferred', current_rx_status_text: 'Transferred' }, false],
    ['a prescription on hold', { status: 'on_hold', current_rx_status_text: 'On Hold' }, false],
    ['an inactive prescription', { status: 'inactive', current_rx_status_text: 'Inactive' }, false],
    ['a prescription with no refills or quantity left', { refills_remaining: 0, quantity_remaining: 0 }, false],
    ['a last fill with no refills after it', { refills_remaining: 0, quantity_remaining: 30 }, true],
    ['a prescription without an expiration date', { expiration_date_utc: null }, true],
  ] as const)('tells whether %s is fillable', async (_name, over, fillable) => {
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, over);
    const { data } = await getPrescription(acme.sandbox_api_key, rx.token);
    expect(data!.prescription.fillable).toBe(fillable);
    // The patient's list agrees with the read.
    const list = await t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}/prescriptions', {
      params: { path: { patient_token: patient } },
    });
    expect(list.data!.prescriptions.find((p) => p.prescription_token === rx.token)?.fillable).toBe(fillable);
  });

  it('is served under the /api/v1 alias too', async () => {
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const { data, response } = await getPrescription(acme.sandbox_api_key, rx.token, { alias: true });
    expect(response.status).toBe(200);
    expect(data!.prescription.prescription_token).toBe(rx.token);
  });
});

describe('a prescription the caller may not read', () => {
  it('answers 404 for an unknown token', async () => {
    const { error, response } = await getPrescription(acme.sandbox_api_key, 'rxUnknown123');
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Prescription.' });
  });

  it("refuses another customer's prescription with 400 Unauthorized", async () => {
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const { error, response } = await getPrescription(globex.sandbox_api_key, rx.token);
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Unauthorized', message: 'Prescription does not belong to this customer.' });
  });

  it("finds nothing for the caller's own prescription of the other environment", async () => {
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const { error, response } = await getPrescription(acme.production_api_key, rx.token);
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ message: 'Unable to find Prescription.' });
  });

  it('refuses a token that is no token', async () => {
    const res = await t.raw('GET', '/v1/prescription/not%20a%20token', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(res.status).toBe(400);
    expect(res.json.validation_errors[0].key).toBe('token');
  });
});
