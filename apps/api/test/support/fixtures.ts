import { expect } from 'vitest';
import type { Environment } from '../../src/auth/principal.js';
import type { PrescriptionsTable } from '../../src/prescriptions/prescription-tables.js';
import { randomToken } from '../../src/tokens.js';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import { startTestAppWithCustomers, type TestApp } from './test-app.js';

export const jane = {
  first_name: 'Jane',
  last_name: 'Doe',
  dob: '19800131',
  gender: 'female' as const,
  zip: '94107',
  street1: '1 Market St',
  city: 'San Francisco',
  state: 'CA',
  country: 'US',
  phone: '4155550100',
  email: 'jane@example.com',
  communications_opt_in: true,
};

/** Where a fill request ships. */
export const address = {
  address_to_name: 'Jane Doe',
  address_to_street1: '1 Market St',
  address_to_city: 'San Francisco',
  address_to_state: 'CA',
  address_to_zip: '94107',
  address_to_phone: '4155550100',
  address_to_email: 'jane@example.com',
};

/** Where a fill request ships, and the survey it must carry (all of whose fields are optional). */
export const destination = { ...address, patient_survey: {} };

/** Jane as the patient tests create her: with her ssn and ID image, which no answer may carry. */
export const janeInFull = { ...jane, ssn: '123456789', id_image: 'https://files.example.com/id/jane.png' };

/** Creates a patient through the API, with a first name of its own, and answers its token. */
export async function createPatient(t: TestApp, apiKey: string, body: Record<string, unknown> = {}): Promise<string> {
  return putPatient(t, apiKey, { ...jane, first_name: `Pat${randomToken(6)}`, ...body });
}

/** Creates a patient of exactly `body` through the API (the same person again answers the same token). */
export async function putPatient(t: TestApp, apiKey: string, body: Record<string, unknown>): Promise<string> {
  const { data, response } = await t.client(apiKey).PUT('/v1/patient', { body: body as never });
  expect(response.status).toBe(201);
  return data!.patient_token;
}

/**
 * Stores a prescription as the pharmacy would on receiving one (the sandbox's electronic
 * prescriptions come later); answers the stored row.
 */
export async function insertPrescription(
  t: TestApp,
  owner: { customer_id: string; environment?: Environment; patient_token: string },
  over: Partial<PrescriptionsTable> = {},
): Promise<PrescriptionsTable> {
  const row: PrescriptionsTable = {
    token: randomToken(),
    customer_id: owner.customer_id,
    environment: owner.environment ?? 'sandbox',
    patient_token: owner.patient_token,
    rx_number: String(6_000_000 + Math.floor(Math.random() * 999_999)),
    status: 'active',
    is_refill: 0,
    medication_name: 'Atorvastatin 20 mg tablet',
    medication_sig: 'Take 1 tablet by mouth daily',
    medication_id: null,
    origin: 'electronic',
    prescribed_brand_name: 'Lipitor',
    prescribed_drug_strength: '20 mg',
    prescribed_generic_name: 'Atorvastatin',
    prescribed_written_name: 'Atorvastatin 20 mg tablet',
    prescribed_quantity: 30,
    prescribed_quantity_unit: 'tablet',
    prescribed_ndc: '00071015523',
    original_prescribed_ndc: null,
    prescriber: 'Dr. Alex Smith',
    prescriber_npi: '1234567893',
    prescriber_order_number: 'ORD-1',
    date_written: '2026-01-02T00:00:00.000Z',
    date_filled_utc: null,
    last_filled_date: null,
    expiration_date_utc: '2099-01-01T00:00:00.000Z',
    days_supply: '30',
    number_of_refills_allowed: 2,
    refills_remaining: 2,
    quantity_remaining: 90,
    current_rx_status_text: null,
    created_at: new Date().toISOString(),
    is_daw: 0,
    dea_schedule: 0,
    notes: null,
    prescriber_token: null,
    prescriber_address_name: 'Dr. Alex Smith',
    prescriber_address_company: 'Bayview Family Medicine',
    prescriber_address_street1: '500 Howard St',
    prescriber_address_street2: null,
    prescriber_address_city: 'San Francisco',
    prescriber_address_state: 'CA',
    prescriber_address_zip: '94105',
    prescriber_address_country: 'US',
    prescriber_address_phone: '4155550123',
    prescriber_address_email: 'office@bayviewfm.example.com',
    icd10_codes: '["E78.5"]',
    icd9_codes: '[]',
    on_formulary: 1,
    formulary_ndc: '00071015523',
    ...over,
  };
  await t.database.handle.db.insertInto('prescriptions').values(row).execute();
  return row;
}

/** A suite's app with its two customers and one sandbox patient of Acme's. */
export interface PatientSuite {
  t: TestApp;
  acme: NewCustomer;
  globex: NewCustomer;
  patient: string;
}

/** Starts the app of a suite whose tests work on one patient of Acme's sandbox (Globex is the other customer). */
export async function startTestAppWithPatient(): Promise<PatientSuite> {
  const { t, acme, globex } = await startTestAppWithCustomers();
  return { t, acme, globex, patient: await createPatient(t, acme.sandbox_api_key) };
}
