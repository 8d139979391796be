// What a request may ask of the service before any operation runs: how deep and how wide its
// body, how long a path segment, how large its headers, how slowly it arrives. Each answer
// past a limit is a clear error in the seed's shape, never a 500 or a dropped connection.
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  ({ t, acme } = await startTestAppWithCustomers({ HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1000', KEEP_ALIVE_TIMEOUT_MS: '300' }));
});
afterAll(async () => t?.close());

const nested = (depth: number) => `{"first_name":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const wideObject = (members: number) => JSON.stringify(Object.fromEntries(Array.from({ length: members }, (_, i) => [`k${i}`, 1])));
const wideArray = (items: number) => JSON.stringify({ first_name: Array.from({ length: items }, () => 1) });

const putPatientJson = (body: string) =>
  t.raw('PUT', '/v1/patient', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/json' }, body });

describe('a JSON body', () => {
  it.each([
    ['nested 5,000 deep', nested(5000), 'Body nests objects and arrays more than 32 levels deep.'],
    ['nested 33 deep', nested(32), 'Body nests objects and arrays more than 32 levels deep.'],
    ['of an object with 60,000 keys', wideObject(60_000), 'Body has an object or array of more than 1000 members.'],
    ['with an array of 1,001 items', wideArray(1001), 'Body has an object or array of more than 1000 members.'],
  ])('%s is refused before it is validated', async (_name, body, message) => {
    const res = await putPatientJson(body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ statusCode: 400, error: 'Bad Request', message });
  });

  it.each([
    ['nested 32 deep', nested(31)],
    ['with an array of 1,000 items', wideArray(1000)],
    ['of an object with 1,000 keys', wideObject(1000)],
  ])('%s at the limit reaches validation', async (_name, body) => {
    const res = await putPatientJson(body);
    expect(res.status).toBe(400);
    expect(res.json.validation_errors).toEqual(expect.arrayContaining([expect.objectContaining({ key: expect.any(String) })]));
  });

  it('counts neither brackets nor commas inside strings', async () => {
    const res = await putPatientJson(JSON.stringify({ first_name: `${'[{,'.repeat(2000)}` }));
    expect(res.json.validation_errors).toBeDefined();
  });

  it('with a __proto__ key is refused as not valid JSON', async () => {
    const res = await putPatientJson('{"first_name":"Jane","__proto__":{"admin":true}}');
    expect(res.json).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Body is not valid JSON.' });
  });

  it('with a __proto__ key spelled in escapes, nested, is refused as not valid JSON', async () => {
    for (const key of ['\\u005f\\u005fproto\\u005f\\u005f', '__\\u0070roto__']) {
      const res = await putPatientJson(`{"first_name":"Jane","patient_survey":{"${key}":{"admin":true}}}`);
      expect(res.json).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Body is not valid JSON.' });
    }
  });

  it('with escapes that spell no __proto__ key is read', async () => {
    const res = await putPatientJson('{"first_name":"J\\u0061ne","last_name":"Doe","dob":"19800131","gender":"female","zip":"94107"}');
    expect(res.status).toBe(201);
    const read = await t.raw('GET', `/v1/patient/${res.json.patient_token}`, { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(read.json.first_name).toBe('Jane');
  });
});

describe('a form body', () => {
  it('with more than 1,000 parameters is refused', async () => {
    const body = Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&');
    const res = await t.raw('PUT', '/v1/patient', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(res.json).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Body has an object or array of more than 1000 members.' });
  });
});

describe('the path', () => {
  const get = (path: string) => t.raw('GET', path, { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });

  it('with a percent-encoded sequence that is not UTF-8 answers 400 in the seed shape', async () => {
    const res = await get('/v1/prescription/x%ED%A0%80y');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'The request path is not a valid URL: a percent-encoded sequence is not UTF-8.',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('with a record id over 64 characters names the parameter; over 128, the path is too long', async () => {
    const long = await get(`/v1/prescription/${'a'.repeat(128)}`);
    expect(long.status).toBe(400);
    expect(long.json.validation_errors).toEqual([{ key: 'token', message: 'must be 1 to 64 letters, digits, _ or -' }]);
    const tooLong = await get(`/v1/prescription/${'a'.repeat(129)}`);
    expect(tooLong.status).toBe(414);
    expect(tooLong.json).toEqual({ statusCode: 414, error: 'URI Too Long', message: 'The request path is too long.' });
  });
});

/** One request on a keep-alive agent of one socket: what it answers, and whether the socket was kept. */
function keptAliveRequest(agent: Agent, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.baseUrl}${path}`, { agent, headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('headers over the limit (a long query string)', () => {
  it('answer 431 in the seed shape and close the connection, so the next request on the agent succeeds', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await keptAliveRequest(agent, `/v1/patient?first_name=${'x'.repeat(20_000)}&last_name=Doe`);
      expect(refused.status).toBe(431);
      expect(refused.headers.connection).toBe('close');
      const body = JSON.parse(refused.body);
      expect(body).toEqual({
        statusCode: 431,
        error: 'Request Header Fields Too Large',
        message: 'The request line and headers are too large; the query string counts toward the limit.',
        request_id: refused.headers['x-request-id'],
      });
      const next = await keptAliveRequest(agent, '/v1/open-api/api.yml');
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

describe('a client sending its headers slowly', () => {
  it('is answered 408 and cut once HEADERS_TIMEOUT_MS has passed', async () => {
    const { port } = new URL(t.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    const started = Date.now();
    socket.write('GET /v1/open-api/api.yml HTTP/1.1\r\nHost: localhost\r\n');
    // One header byte every 100 ms: the connection is never idle, but the headers never end.
    const trickle = setInterval(() => socket.writable && socket.write('x'), 100);
    try {
      const closedAt = await Promise.race([closed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('not cut')), 5000))]);
      expect(closedAt - started).toBeLessThan(3000);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
    const [head, body] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toMatch(/\r\nconnection: close/i);
    expect(JSON.parse(body!)).toMatchObject({ statusCode: 408, error: 'Request Timeout', message: 'The request did not arrive in time.' });
  });
});

describe('an idle keep-alive connection', () => {
  it('is closed once KEEP_ALIVE_TIMEOUT_MS has passed after its last answer', async () => {
    const { port } = new URL(t.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    const answered = new Promise<number>((resolve) =>
      socket.on('data', (chunk) => {
        received += chunk;
        if (received.includes('\r\n\r\n')) resolve(Date.now());
      }),
    );
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    socket.write('GET /v1/nothing-here HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    try {
      const answeredAt = await answered;
      expect(received).toMatch(/^HTTP\/1\.1 404 /);
      const closedAt = await Promise.race([closed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('kept open')), 3000))]);
      expect(closedAt - answeredAt).toBeGreaterThanOrEqual(250);
    } finally {
      socket.destroy();
    }
  });
});
