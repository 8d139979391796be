// Updating a patient (updatePatient); reading, updating or listing the prescriptions of another
// customer's patient, or of the other environment's, is refused and changes nothing.
import { validateResponse } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { janeInFull as jane, putPatient } from './support/fixtures.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

const createPatient = (key: string, body: Record<string, unknown>) => putPatient(t, key, body);

describe('updating a patient', () => {
  it('answers a 202 receipt and the change is visible on read', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Mover' });
    const client = t.client(acme.sandbox_api_key);
    const { data, response } = await client.POST('/v1/patient/{patient_token}', {
      params: { path: { patient_token: token } },
      body: { street1: '500 Howard St', city: 'Oakland', state: 'ca', communications_opt_in: false, mbi: '1EG4TE5MK73' },
    });
    expect(response.status).toBe(202);
    expect(data).toMatchObject({ patient_token: token, status: 'success', details: { message: 'Patient updated.' } });
    expect(Date.parse(data!.timestamp)).not.toBeNaN();
    const read = await client.GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect(read.data).toMatchObject({
      mbi: '1EG4TE5MK73',
      address: { street1: '500 Howard St', city: 'Oakland', state: 'CA', zip: '94107', communications_opt_in: false },
    });
  });

  it('answers state and country upper-cased, whatever case they were written in, as the spec promises', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Cased', state: 'ca', country: 'us' });
    const client = t.client(acme.sandbox_api_key);
    const read = () => client.GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect((await read()).data!.address).toMatchObject({ state: 'CA', country: 'US' });
    await client.POST('/v1/patient/{patient_token}', { params: { path: { patient_token: token } }, body: { state: 'nY' } });
    const updated = (await read()).data!;
    expect(updated.address).toMatchObject({ state: 'NY', country: 'US' });
    // The read schema says so: a lower-case state or country would not be the documented answer.
    const answer = (address: object) => ({ method: 'GET', url: `/v1/patient/${token}`, status: 200, contentType: 'application/json', body: { ...updated, address } });
    expect(validateResponse(answer(updated.address))).toEqual([]);
    expect(validateResponse(answer({ ...updated.address, state: 'ny' })).map((p) => p.kind)).toEqual(['invalid-body']);
    expect(validateResponse(answer({ ...updated.address, country: 'us' })).map((p) => p.kind)).toEqual(['invalid-body']);
  });

  it.each(['first_name', 'last_name', 'dob', 'gender', 'species'])('refuses %s as not allowed', async (field) => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Fixed' });
    const { error, response } = await t.client(acme.sandbox_api_key).POST('/v1/patient/{patient_token}', {
      params: { path: { patient_token: token } },
      body: { city: 'Nowhere', [field]: 'x' } as never,
    });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: [{ key: field, message: 'is not allowed' }] });
    const read = await t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect(read.data?.address.city).toBe('San Francisco');
  });

  it('accepts form data through the /api/v1 alias', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Formed' });
    const res = await t.raw('POST', `/api/v1/patient/${token}`, {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'viewed_notice_of_privacy_practices=true&phone=4155550199',
    });
    expect(res.status).toBe(202);
  });

  it('answers 404 for an unknown patient', async () => {
    const { error, response } = await t.client(acme.sandbox_api_key).POST('/v1/patient/{patient_token}', {
      params: { path: { patient_token: 'unknownToken123' } },
      body: { city: 'Nowhere' },
    });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ message: 'Unable to find Patient.' });
  });
});

describe('isolation between customers and environments', () => {
  let token: string;
  beforeAll(async () => {
    token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Isolated' });
  });

  const reads = [
    ['reading', (key: string) => t.client(key).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } })],
    [
      'updating',
      (key: string) =>
        t.client(key).POST('/v1/patient/{patient_token}', { params: { path: { patient_token: token } }, body: { city: 'Hijacked' } }),
    ],
    [
      'listing prescriptions of',
      (key: string) => t.client(key).GET('/v1/patient/{patient_token}/prescriptions', { params: { path: { patient_token: token } } }),
    ],
  ] as const;

  it.each(reads)("%s another customer's patient is refused", async (_name, call) => {
    const { error, response } = await call(globex.sandbox_api_key);
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Unauthorized', message: 'Patient does not belong to this customer.' });
  });

  it.each(reads)('%s a patient of the other environment finds nothing', async (_name, call) => {
    const { error, response } = await call(acme.production_api_key);
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ message: 'Unable to find Patient.' });
  });

  it('left the patient unchanged', async () => {
    const { data } = await t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect(data?.address.city).toBe('San Francisco');
  });
});
