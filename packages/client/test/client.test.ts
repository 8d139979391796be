import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contractMiddleware } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createPharmacyClient,
  environmentBaseUrls,
  isValidationError,
  type NotFoundErrorBody,
  type UnauthorizedErrorBody,
  type ValidationErrorBody,
} from '../src/index.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

const token = 'p7Xk2mQ9rT4vW8yZ1aB3cD5e';
const jane = { first_name: 'Jane', last_name: 'Doe', dob: '19800131', gender: 'female' } as const;
const seen: Seen[] = [];
let server: Server;
let origin: string;

/** Just enough of the API to answer what these tests send, in the spec's shapes. */
function answer(method: string, path: string, authorized: boolean, body: Record<string, unknown>): [number, unknown] {
  if (!authorized) return [401, { statusCode: 401, error: 'Unauthorized', message: 'Please Send a Valid Api-Key' }];
  if (method === 'PUT' && path === '/v1/patient') {
    if (!/^\d{8}$/.test(String(body.dob))) {
      return [400, { statusCode: 400, error: 'Bad Request', validation_errors: [{ key: 'dob', message: 'must be YYYYMMDD' }] }];
    }
    return [201, { patient_token: token }];
  }
  if (method === 'GET' && path === `/v1/patient/${token}`) {
    const address = { name: 'Jane Doe', street1: null, street2: null, city: null, state: null, zip: null, company: null, country: null, phone: null, email: null, communications_opt_in: null };
    return [200, { patient_token: token, ...jane, guardian: null, mbi: null, address }];
  }
  return [404, { statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' }];
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    const path = new URL(req.url!, 'http://x').pathname.replace(/^\/api(?=\/v1\/)/, '');
    const [status, body] = answer(req.method!, path, req.headers.authorization !== undefined, text ? JSON.parse(text) : {});
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

const lastSeen = () => seen.at(-1)!;
const client = (options: { apiKey?: string; bearerToken?: string; baseUrl?: string } = {}) =>
  createPharmacyClient({ baseUrl: origin, ...options, middleware: [contractMiddleware()] });

describe('the pharmacy client', () => {
  it('creates a patient and reads it back with the API key', async () => {
    const api = client({ apiKey: 'sk_test_1' });
    const created = await api.PUT('/v1/patient', { body: jane });
    expect(created.response.status).toBe(201);
    expect(created.data).toEqual({ patient_token: token });
    expect(lastSeen()).toMatchObject({ method: 'PUT', url: '/v1/patient', headers: { authorization: 'ApiKey sk_test_1', 'content-type': 'application/json' } });

    const read = await api.GET('/v1/patient/{patient_token}', { params: { path: { patient_token: created.data!.patient_token } } });
    expect(read.data?.first_name).toBe('Jane');
    expect(lastSeen().url).toBe(`/v1/patient/${token}`);
  });

  it('sends a bearer token as Bearer', async () => {
    await client({ bearerToken: 'tok' }).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect(lastSeen().headers.authorization).toBe('Bearer tok');
  });

  it('lets one call override the Authorization header', async () => {
    await client({ apiKey: 'sk_test_1' }).GET('/v1/patient/{patient_token}', {
      params: { path: { patient_token: token } },
      headers: { Authorization: 'ApiKey sk_other' },
    });
    expect(lastSeen().headers.authorization).toBe('ApiKey sk_other');
  });

  it('uses the environment preset as base URL', async () => {
    const sandbox = environmentBaseUrls.sandbox;
    expect(sandbox).toBe('https://sandbox.pharmacy.example.com');
    let requested = '';
    const api = createPharmacyClient({
      environment: 'sandbox',
      apiKey: 'sk_test_1',
      // Sends what was meant for the sandbox to the in-test server instead.
      fetch: (request) => {
        requested = request.url;
        return fetch(new Request(request.url.replace(sandbox, origin), request));
      },
    });
    const { data } = await api.GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect(requested).toBe(`https://sandbox.pharmacy.example.com/v1/patient/${token}`);
    expect(data?.patient_token).toBe(token);
    expect(lastSeen().headers.authorization).toBe('ApiKey sk_test_1');
  });

  it('sends to the local server when given neither a base URL nor an environment', async () => {
    const requested: string[] = [];
    const local = createPharmacyClient({ apiKey: 'sk_test_1', fetch: (request) => (requested.push(request.url), fetch(new Request(request.url.replace(environmentBaseUrls.local, origin), request))) });
    const { data } = await local.GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect(requested).toEqual([`http://localhost:3000/v1/patient/${token}`]);
    expect(data?.patient_token).toBe(token);
    expectTypeOf(createPharmacyClient).toBeCallableWith();
    // @ts-expect-error: a base URL and an environment together are refused by the types
    createPharmacyClient({ baseUrl: origin, environment: 'local' });
  });

  it('serves the /api alias through the base URL', async () => {
    const { data } = await client({ apiKey: 'sk_test_1', baseUrl: `${origin}/api` }).PUT('/v1/patient', { body: jane });
    expect(lastSeen().url).toBe('/api/v1/patient');
    expect(data?.patient_token).toBe(token);
  });

  it('types a 400 as a validation error naming the field', async () => {
    const { data, error, response } = await client({ apiKey: 'sk_test_1' }).PUT('/v1/patient', { body: { ...jane, dob: '1980-01-31' } });
    expect(response.status).toBe(400);
    expect(data).toBeUndefined();
    expectTypeOf(error).toEqualTypeOf<ValidationErrorBody | UnauthorizedErrorBody | NotFoundErrorBody | undefined>();
    expect(isValidationError(error)).toBe(true);
    if (!isValidationError(error)) return;
    expectTypeOf(error.validation_errors).toEqualTypeOf<{ key: string; message: string }[] | undefined>();
    expect(error.validation_errors).toEqual([{ key: 'dob', message: 'must be YYYYMMDD' }]);
  });

  it('types a 404 and a 401 body', async () => {
    const missing = await client({ apiKey: 'sk_test_1' }).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: 'unknown' } } });
    expect(missing.error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' });
    expect(isValidationError(missing.error)).toBe(false);

    const anonymous = await client().GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });
    expect(lastSeen().headers.authorization).toBeUndefined();
    expect(anonymous.error?.message).toBe('Please Send a Valid Api-Key');
    expectTypeOf<UnauthorizedErrorBody['message']>().toEqualTypeOf<'Please Send a Valid Api-Key'>();
    expectTypeOf<NotFoundErrorBody>().toEqualTypeOf<{ statusCode: number; error: string; message: string; request_id?: string }>();
  });

  it('refuses an API key and a bearer token together', () => {
    expect(() => createPharmacyClient({ environment: 'local', apiKey: 'a', bearerToken: 'b' })).toThrow(/not both/);
  });
});
