// Finding a patient (findPatient), a patient's prescriptions (listPatientPrescriptions), and what
// no answer ever carries: the ssn and the ID image.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { insertPrescription, janeInFull as jane, putPatient } from './support/fixtures.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

const createPatient = (key: string, body: Record<string, unknown>) => putPatient(t, key, body);

describe('finding a patient', () => {
  it('finds by name in any case and dob in either notation', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Finda', last_name: 'Ble' });
    for (const dob of ['19800131', '1980-01-31']) {
      const { data, response } = await t.client(acme.sandbox_api_key).GET('/v1/patient', {
        params: { query: { first_name: 'FINDA', last_name: 'ble', dob, gender: 'unknown' } },
      });
      expect(response.status).toBe(200);
      expect(data).toEqual({
        patient_token: token,
        first_name: 'Finda',
        last_name: 'Ble',
        guardian: null,
        gender: 'female',
        dob: '19800131',
        communications_opt_in: true,
        species: 'Human',
      });
    }
  });

  it('narrows by the optional parameters and answers 404 when nothing matches', async () => {
    await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Narrow', zip: '94107' });
    const client = t.client(acme.sandbox_api_key);
    const base = { first_name: 'Narrow', last_name: 'Doe', dob: '19800131', gender: 'female' as const };
    expect((await client.GET('/v1/patient', { params: { query: { ...base, zip: '94107' } } })).response.status).toBe(200);
    const miss = await client.GET('/v1/patient', { params: { query: { ...base, zip: '10001' } } });
    expect(miss.response.status).toBe(404);
    expect(miss.error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' });
    const male = await client.GET('/v1/patient', { params: { query: { ...base, gender: 'male' } } });
    expect(male.response.status).toBe(404);
  });

  it('requires first_name, last_name, gender and dob', async () => {
    const res = await t.raw('GET', '/v1/patient?first_name=Jane', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(res.status).toBe(400);
    expect(res.json.validation_errors).toEqual([
      { key: 'last_name', message: 'is required' },
      { key: 'gender', message: 'is required' },
      { key: 'dob', message: 'is required' },
    ]);
  });

  it("never finds another customer's or the other environment's patients", async () => {
    await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Private' });
    const query = { first_name: 'Private', last_name: 'Doe', dob: '19800131', gender: 'female' as const };
    for (const key of [globex.sandbox_api_key, acme.production_api_key]) {
      const { response } = await t.client(key).GET('/v1/patient', { params: { query } });
      expect(response.status).toBe(404);
    }
  });
});

describe("a patient's prescriptions", () => {
  it('lists none for a new patient', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Empty' });
    const { data } = await t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}/prescriptions', {
      params: { path: { patient_token: token } },
    });
    expect(data).toEqual({ patient_token: token, prescriptions: [] });
  });

  it('lists the stored prescriptions newest first, fillable only while usable', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Treated' });
    const owner = { customer_id: acme.customer_id, patient_token: token };
    await insertPrescription(t, owner, { token: 'rxActive', created_at: '2026-01-03T00:00:00.000Z' });
    await insertPrescription(t, owner, { token: 'rxExpired', expiration_date_utc: '2020-01-01T00:00:00.000Z', created_at: '2026-01-02T00:00:00.000Z' });
    await insertPrescription(t, owner, { token: 'rxGone', status: 'transferred', current_rx_status_text: 'Transferred', created_at: '2026-01-01T00:00:00.000Z' });
    const { data } = await t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}/prescriptions', {
      params: { path: { patient_token: token } },
    });
    expect(data!.prescriptions.map((p) => [p.prescription_token, p.fillable])).toEqual([
      ['rxActive', true],
      ['rxExpired', false],
      ['rxGone', false],
    ]);
    expect(data!.prescriptions[0]).toMatchObject({ is_refill: false, quantity_remaining: 90, days_supply: '30' });
  });
});

describe('what never leaves the service', () => {
  it('no response carries the ssn or the id image', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Secret', ssn: '987654321' });
    const headers = { authorization: `ApiKey ${acme.sandbox_api_key}` };
    const bodies = await Promise.all([
      t.raw('GET', `/v1/patient/${token}`, { headers }),
      t.raw('GET', '/v1/patient?first_name=Secret&last_name=Doe&dob=19800131&gender=female', { headers }),
      t.raw('GET', `/v1/patient/${token}/prescriptions`, { headers }),
    ]);
    for (const res of bodies) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('987654321');
      expect(res.text).not.toContain('files.example.com');
    }
  });
});
