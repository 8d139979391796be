// Creating a patient (createPatient): the token and read shape, the same person again, form and
// query bodies, the fields and bodies it refuses; and the API key checked before anything else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { janeInFull as jane, putPatient } from './support/fixtures.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  ({ t, acme } = await startTestAppWithCustomers({ BODY_LIMIT: '4096' }));
});
afterAll(async () => t?.close());

const createPatient = (key: string, body: Record<string, unknown>) => putPatient(t, key, body);

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

  it('answers one token to the same person created many times at once (the insert commits alone on PostgreSQL)', async () => {
    const person = { ...jane, first_name: 'Concurrent', last_name: 'Creates' };
    const tokens = await Promise.all(Array.from({ length: 12 }, () => createPatient(acme.sandbox_api_key, person)));
    expect(new Set(tokens).size).toBe(1);
    expect(await createPatient(acme.sandbox_api_key, person)).toBe(tokens[0]);
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
    ['a species outside the list', { ...jane, species: 'Dragon' }, [{ key: 'species', message: expect.stringMatching(/^must be one of \[Human, Crocodile, .*, \.\.\.\] \(138 values: see Species in the API reference\)$/) }]],
    ['a prefix outside the list', { ...jane, prefix: 'Dr.' }, [{ key: 'prefix', message: expect.stringContaining('must be one of [Mr.') }]],
    ['a dob not written YYYYMMDD', { ...jane, dob: '31011980' }, [{ key: 'dob', message: 'must be a date as YYYYMMDD' }]],
    ['a dob that is no calendar date', { ...jane, dob: '19800230' }, [{ key: 'dob', message: 'must be a valid date' }]],
    ['a zip of the wrong form', { ...jane, zip: '9410' }, [{ key: 'zip', message: 'must be a ZIP code as 12345 or 12345-6789' }]],
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
