// A deprecated operation (deprecated: true, x-deprecated-at, x-sunset; spec/VERSIONING.md) says
// so on every answer: Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to its docs. No
// operation is deprecated today, so this app is built with getPatient's route marked as one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { routes } from '../src/generated/routes.js';
import { deprecationHeaders } from '../src/http/deprecation-headers.js';
import { createPatient } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const getPatient = routes.find((route) => route.operationId === 'getPatient')!;
const DEPRECATED = { deprecatedAt: '2026-12-01', sunset: '2027-06-30' };
const expected = {
  deprecation: '@1796083200',
  sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
  link: '</docs#operation/getPatient>; rel="deprecation"; type="text/html"',
};

let t: TestApp;
let acme: NewCustomer;
beforeAll(async () => {
  expect(getPatient.deprecation).toBeUndefined();
  getPatient.deprecation = DEPRECATED;
  t = await startTestApp();
  acme = await t.customer();
});
afterAll(async () => {
  delete getPatient.deprecation;
  await t?.close();
});

function deprecationOf(res: Response): Record<string, string | null> {
  return { deprecation: res.headers.get('deprecation'), sunset: res.headers.get('sunset'), link: res.headers.get('link') };
}

describe('a deprecated operation', () => {
  it('answers a success with Deprecation, Sunset and Link, under both of its addresses', async () => {
    const token = await createPatient(t, acme.sandbox_api_key);
    for (const prefix of ['', '/api']) {
      const res = await fetch(`${t.baseUrl}${prefix}/v1/patient/${token}`, { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
      expect(res.status).toBe(200);
      expect(deprecationOf(res)).toEqual(expected);
    }
  });

  it('answers a HEAD request with them too', async () => {
    const token = await createPatient(t, acme.sandbox_api_key);
    const res = await fetch(`${t.baseUrl}/v1/patient/${token}`, { method: 'HEAD', headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(res.status).toBe(200);
    expect(deprecationOf(res)).toEqual(expected);
  });

  it.each([
    ['a refused caller (401)', 'tok_nobody', undefined, 401],
    ['a record it cannot find (404)', 'tok_nobody', 'key', 404],
    ['an invalid parameter (400)', 'not a token!', 'key', 400],
  ] as const)('answers %s with the same headers', async (_name, token, auth, status) => {
    const headers: Record<string, string> = auth ? { authorization: `ApiKey ${acme.sandbox_api_key}` } : {};
    const res = await fetch(`${t.baseUrl}/v1/patient/${encodeURIComponent(token)}`, { headers });
    expect(res.status).toBe(status);
    expect(deprecationOf(res)).toEqual(expected);
  });

  it('leaves the other operations, even on the same path, without them', async () => {
    const token = await createPatient(t, acme.sandbox_api_key);
    const res = await fetch(`${t.baseUrl}/v1/patient/${token}`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Renamed' }),
    });
    expect(res.status).toBeLessThan(500);
    expect(deprecationOf(res)).toEqual({ deprecation: null, sunset: null, link: null });
  });
});

describe('the deprecation headers of a route', () => {
  it.each([
    ['2026-12-01', '2027-06-30', '@1796083200', 'Wed, 30 Jun 2027 00:00:00 GMT'],
    ['1970-01-02', '2000-02-29', '@86400', 'Tue, 29 Feb 2000 00:00:00 GMT'],
  ])('deprecated on %s, sunset on %s', (deprecatedAt, sunset, deprecation, sunsetHeader) => {
    expect(deprecationHeaders({ operationId: 'x', deprecation: { deprecatedAt, sunset } })).toMatchObject({ deprecation, sunset: sunsetHeader });
  });

  it('are none for an operation that is not deprecated', () => {
    expect(deprecationHeaders({ operationId: 'x' })).toBeUndefined();
  });
});
