// Errors that say how to fix the request: validation messages naming the expected form (the
// spec's `x-expected`) or the allowed values, JSON sent as form data, the transfer request's
// contact pairs as one item, `WWW-Authenticate` on every 401, and `405` with `Allow` for a
// method a known path does not serve.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jane, type PatientSuite, startTestAppWithPatient } from './support/fixtures.js';
import { accessToken } from './support/platform.js';

let { t, acme, patient } = {} as PatientSuite;
beforeAll(async () => ({ t, acme, patient } = await startTestAppWithPatient()));
afterAll(async () => t?.close());

const json = (key: string) => ({ authorization: `ApiKey ${key}`, 'content-type': 'application/json' });
const badRequest = (...validation_errors: { key: string; message: string }[]) => ({ statusCode: 400, error: 'Bad Request', validation_errors });

describe('a validation message names the form or the values expected', () => {
  it.each([
    ['a dob written YYYY-MM-DD (too long and of the wrong form: one message)', { dob: '1980-01-31' }, 'dob', 'must be a date as YYYYMMDD'],
    ['a dob of eight characters that is no date', { dob: '19801331' }, 'dob', 'must be a date as YYYYMMDD'],
    ['a zip of three digits', { zip: '941' }, 'zip', 'must be a ZIP code as 12345 or 12345-6789'],
    ['a gender of no value of the list', { gender: 'x' }, 'gender', 'must be one of [male, female]'],
  ])('%s', async (_, change, key, message) => {
    const res = await t.raw('PUT', '/v1/patient', { headers: json(acme.sandbox_api_key), body: JSON.stringify({ ...jane, ...change }) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject(badRequest({ key, message }));
  });

  it('an empty value still answers `is not allowed to be empty`', async () => {
    const res = await t.raw('PUT', '/v1/patient', { headers: json(acme.sandbox_api_key), body: JSON.stringify({ ...jane, dob: '' }) });
    expect(res.json).toMatchObject(badRequest({ key: 'dob', message: 'is not allowed to be empty' }));
  });

  it('a long enum lists its first values and where to find the rest', async () => {
    const res = await t.raw('PUT', '/v1/patient', { headers: json(acme.sandbox_api_key), body: JSON.stringify({ ...jane, species: 'Unicorn' }) });
    expect(res.status).toBe(400);
    const [item] = res.json.validation_errors as { key: string; message: string }[];
    expect(item).toEqual({ key: 'species', message: expect.stringMatching(/^must be one of \[Human, .*, \.\.\.\] \(\d+ values: see Species in the API reference\)$/) });
  });

  it('a pattern of a query parameter is worded too (an NPI of 9 digits)', async () => {
    const res = await t.raw('GET', '/v1/specialty_pharmacies?prescriber_npi=123456789', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(res.status).toBe(400);
    expect(res.json.validation_errors).toContainEqual({ key: 'prescriber_npi', message: 'must be 10 digits' });
  });
});

describe('JSON sent as form data', () => {
  const body = JSON.stringify({ first_name: 'Jane', last_name: 'Doe', dob: '19800131', gender: 'female' });
  it.each([
    ['as curl -d sends it', body],
    ['percent-encoded', encodeURIComponent(body)],
    ['an array', '[{"first_name":"Jane"}]'],
  ])('answers one item saying to send Content-Type: application/json (%s)', async (_, text) => {
    const res = await t.raw('PUT', '/v1/patient', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: text,
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ ...badRequest({ key: 'body', message: 'looks like JSON sent as form data: send Content-Type: application/json' }), request_id: expect.any(String) });
  });

  it('real form data is still read', async () => {
    const res = await t.raw('PUT', '/v1/patient', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ first_name: 'Formy', last_name: 'Doe', dob: '19800131', gender: 'female' }).toString(),
    });
    expect(res.status).toBe(201);
  });
});

describe('a transfer request without a contact pair', () => {
  it('answers one item naming both pairs', async () => {
    const res = await t.raw('POST', '/v1/transfer_request', { headers: json(acme.sandbox_api_key), body: JSON.stringify({ patient_token: patient }) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject(
      badRequest({ key: 'body', message: 'must contain at least one of [pharmacy_name with pharmacy_phone, prescriber_name with prescriber_phone]' }),
    );
  });

  it('half a pair still names the missing half', async () => {
    const res = await t.raw('POST', '/v1/transfer_request', { headers: json(acme.sandbox_api_key), body: JSON.stringify({ patient_token: patient, pharmacy_name: 'Corner' }) });
    expect(res.json).toMatchObject(badRequest({ key: 'pharmacy_phone', message: 'is required' }));
  });
});

describe('a 401 names the scheme expected in WWW-Authenticate', () => {
  const apiKey401 = { statusCode: 401, error: 'Unauthorized', message: 'Please Send a Valid Api-Key' };
  const platform401 = { statusCode: 401, error: 'Unauthorized', message: 'Authorization missing or invalid' };
  it.each([
    ['an API-key operation without a key', 'GET', `/v1/patient/${'pat'}`, {}, apiKey401, 'ApiKey realm="pharmacy"'],
    ['an API-key operation with an unknown key', 'GET', '/v1/patient/pat', { authorization: 'ApiKey sk_test_nobody' }, apiKey401, 'ApiKey realm="pharmacy"'],
    ['a bearer operation without a token', 'DELETE', '/accounts/acc', {}, platform401, 'Bearer realm="pharmacy"'],
    ['a bearer operation with a wrong token', 'DELETE', '/accounts/acc', { authorization: 'Bearer not-a-token' }, platform401, 'Bearer realm="pharmacy", error="invalid_token"'],
    ['an operation taking either, without credentials (API key first)', 'GET', '/consults/v0', {}, apiKey401, 'ApiKey realm="pharmacy", Bearer realm="pharmacy"'],
    ['an operation taking either, with a wrong token (token first)', 'GET', '/diagnostics/v0/kits', { authorization: 'Bearer not-a-token' }, platform401, 'Bearer realm="pharmacy", error="invalid_token", ApiKey realm="pharmacy"'],
  ])('%s', async (_, method, path, headers, body, challenge) => {
    const res = await t.raw(method, path, { headers: headers as Record<string, string> });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ ...body, request_id: expect.any(String) });
    expect(res.headers.get('www-authenticate')).toBe(challenge);
  });

  it('a valid token keeps its way in (the challenge is only on refusals)', async () => {
    const res = await t.raw('GET', '/diagnostics/v0/kits', { headers: { authorization: `Bearer ${await accessToken(t, acme)}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });
});

describe('a method a known path does not serve', () => {
  const send = (method: string, path: string, headers: Record<string, string> = {}) => fetch(t.baseUrl + path, { method, headers });
  it.each([
    ['a plain path', 'DELETE', '/v1/patient', 'GET, HEAD, PUT'],
    ['the /api/v1 alias', 'DELETE', '/api/v1/patient', 'GET, HEAD, PUT'],
    ['a path with a parameter', 'PATCH', '/v1/patient/pat123', 'GET, HEAD, POST'],
    ['a path with a trailing slash', 'DELETE', '/v1/patient/', 'GET, HEAD, PUT'],
  ])('answers 405 with Allow: %s', async (_, method, path, allow) => {
    const res = await send(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(await res.json()).toEqual({
      statusCode: 405,
      error: 'Method Not Allowed',
      message: `${method} is not allowed on this path; it answers ${allow}.`,
      request_id: expect.any(String),
    });
  });

  it('answers the 405 before authentication: what it tells is in the public interface document', async () => {
    const res = await send('DELETE', '/v1/patient', { authorization: 'ApiKey sk_test_nobody' });
    expect(res.status).toBe(405);
  });

  it.each([['/v1/patients'], ['/v1/patient/pat123/nothing'], ['/api/v2/patient']])('an unknown path still answers 404 (%s)', async (path) => {
    const res = await send('DELETE', path);
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
    expect(await res.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'Resource Not Found.', request_id: expect.any(String) });
  });
});
