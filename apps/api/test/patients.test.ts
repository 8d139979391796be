import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { insertPrescription } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const jane = {
  first_name: 'Jane',
  last_name: 'Doe',
  dob: '19800131',
  gender: 'female' as const,
  ssn: '123456789',
  id_image: 'https://files.example.com/id/jane.png',
  zip: '94107',
  street1: '1 Market St',
  city: 'San Francisco',
  state: 'CA',
  country: 'US',
  phone: '4155550100',
  email: 'jane@example.com',
  communications_opt_in: true,
};

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  t = await startTestApp({ BODY_LIMIT: '4096' });
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
});
afterAll(async () => t?.close());

async function createPatient(key: string, body: Record<string, unknown>): Promise<string> {
  const { data, response } = await t.client(key).PUT('/v1/patient', { body: body as never });
  expect(response.status).toBe(201);
  return data!.patient_token;
}

describe('creating a patient', () => {
  it('answers a token, and reading it back gives the read shape without ssn or id_image', async () => {
    const token = await createPatient(acme.sandbox_api_key, { ...jane, first_name: 'Janet' });
    const { data, response } = await t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}', {
      params: { path: { patient_token: token } },
    });
    expect(response.status).toBe(200);
    expect(data).toEqual({
      patient_token: token,
      first_name: 'Janet',
      last_name: 'Doe',
      guardian: null,
      gender: 'female',
      dob: '19800131',
      mbi: null,
      address: {
        name: 'Janet Doe',
        street1: '1 Market St',
        street2: null,
        city: 'San Francisco',
        state: 'CA',
        zip: '94107',
        company: null,
        country: 'US',
        phone: '4155550100',
        email: 'jane@example.com',
        communications_opt_in: true,
      },
    });
  });

  it('answers the existing token when the same person is created again, names trimmed and in any case', async () => {
    const first = await createPatient(acme.sandbox_api_key, jane);
    const again = await createPatient(acme.sandbox_api_key, { ...jane, first_name: '  JANE ', last_name: 'doe', zip: '10001' });
    expect(again).toBe(first);
    const pet = await createPatient(acme.sandbox_api_key, { ...jane, guardian: 'Sam', species: 'Dog/Canine' });
    expect(pet).not.toBe(first);
  });

  it('accepts form data, query parameters and the /api/v1 alias', async () => {
    const form = await t.raw('PUT', '/v1/patient', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'first_name=Form&last_name=Person&dob=19900101&gender=male&communications_opt_in=true',
    });
    expect(form.status).toBe(201);
    const query = await t.raw('PUT', '/v1/patient?first_name=Query&last_name=Person&dob=19900101&gender=male', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}` },
    });
    expect(query.status).toBe(201);
    const { data, response } = await t.client(acme.sandbox_api_key, { alias: true }).GET('/v1/patient/{patient_token}', {
      params: { path: { patient_token: form.json.patient_token } },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ first_name: 'Form', address: { communications_opt_in: true } });
    expect(query.json.patient_token).not.toBe(form.json.patient_token);
  });

  it.each([
    ['a missing field', { ...jane, first_name: undefined }, [{ key: 'first_name', message: 'is required' }]],
    ['an empty field', { ...jane, last_name: '' }, [{ key: 'last_name', message: 'is not allowed to be empty' }]],
    ['a blank field', { ...jane, last_name: '   ' }, [{ key: 'last_name', message: 'is not allowed to be empty' }]],
    ['an unknown field', { ...jane, favourite_colour: 'blue' }, [{ key: 'favourite_colour', message: 'is not allowed' }]],
    ['a gender outside the list', { ...jane, gender: 'other' }, [{ key: 'gender', message: 'must be one of [male, female]' }]],
    ['a species outside the list', { ...jane, species: 'Dragon' }, [{ key: 'species', message: 'must be one of the allowed values' }]],
    ['a prefix outside the list', { ...jane, prefix: 'Dr.' }, [{ key: 'prefix', message: expect.stringContaining('must be one of [Mr.') }]],
    ['a dob not written YYYYMMDD', { ...jane, dob: '31011980' }, [{ key: 'dob', message: expect.stringContaining('fails to match') }]],
    ['a dob that is no calendar date', { ...jane, dob: '19800230' }, [{ key: 'dob', message: 'must be a valid date' }]],
    ['a zip of the wrong form', { ...jane, zip: '9410' }, [{ key: 'zip', message: expect.stringContaining('fails to match') }]],
    ['a boolean of the wrong type', { ...jane, communications_opt_in: 'yes' }, [{ key: 'communications_opt_in', message: 'must be a boolean' }]],
  ])('refuses %s with the seed validation shape', async (_name, body, expected) => {
    const { error, response } = await t.client(acme.sandbox_api_key).PUT('/v1/patient', { body: body as never });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: expected });
  });

  it('reports every offending field at once', async () => {
    const { error } = await t.client(acme.sandbox_api_key).PUT('/v1/patient', { body: {} as never });
    expect((error as any).validation_errors.map((e: any) => e.key).sort()).toEqual(['dob', 'first_name', 'gender', 'last_name']);
  });

  it.each([
    ['malformed JSON', 'application/json', '{"first_name":', 400, { message: 'Body is not valid JSON.' }],
    ['an empty JSON body', 'application/json', '', 400, { message: expect.stringContaining('cannot be empty') }],
    ['a JSON array', 'application/json', '[]', 400, { validation_errors: [{ key: 'body', message: 'must be an object' }] }],
    ['plain text', 'text/plain', 'hello', 415, { error: 'Unsupported Media Type' }],
    ['an oversize body', 'application/json', JSON.stringify({ ...jane, notes: 'x'.repeat(5000) }), 413, { error: 'Payload Too Large' }],
  ])('answers %s with a clear %s-class error, never a 500', async (_name, contentType, body, status, expected) => {
    const res = await t.raw('PUT', '/v1/patient', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': contentType },
      body,
    });
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ statusCode: status, ...expected });
  });

  it('writes nothing when validation fails', async () => {
    await t.client(acme.sandbox_api_key).PUT('/v1/patient', { body: { ...jane, first_name: 'Nobody', dob: '19800230' } });
    const { response } = await t.client(acme.sandbox_api_key).GET('/v1/patient', {
      params: { query: { first_name: 'Nobody', last_name: 'Doe', dob: '19800230', gender: 'female' } },
    });
    expect(response.status).toBe(404);
  });
});

describe('authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['an unknown key', 'ApiKey sk_sandbox_unknown'],
    ['another scheme', `Bearer ${'x'.repeat(20)}`],
  ])('refuses %s with the exact 401 body', async (_name, header) => {
    const res = await t.raw('GET', '/v1/patient/abc', { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Please Send a Valid Api-Key' });
  });

  it('checks the key before reading the body', async () => {
    const res = await t.raw('PUT', '/v1/patient', { headers: { 'content-type': 'application/json' }, body: '{bad' });
    expect(res.status).toBe(401);
  });
});

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
