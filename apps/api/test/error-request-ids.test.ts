// Every error body names its request (`request_id`, the `x-request-id` header's value), so a
// client quoting an error leads an operator straight to the request's log lines. A 501 (an
// operation not built yet) is logged as a warning without a stack: nothing failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { notImplemented } from '../src/errors.js';
import { handlers } from '../src/generated/handler-index.js';
import { startTestApp, startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;

// Every operation is built now: one is put back to its generated stub for these apps.
const implemented = handlers.listSpecialtyPharmacies;
const NOT_BUILT = '/v1/specialty_pharmacies?prescriber_npi=1588667638&bin=610014';

beforeAll(async () => {
  handlers.listSpecialtyPharmacies = async () => {
    throw notImplemented('listSpecialtyPharmacies');
  };
  ({ t, acme } = await startTestAppWithCustomers({ BODY_LIMIT: '4096' }));
});
afterAll(async () => {
  handlers.listSpecialtyPharmacies = implemented;
  await t?.close();
});

const json: Record<string, string> = { 'content-type': 'application/json' };
const none: Record<string, string> = {};

describe('an error body', () => {
  it.each([
    ['a validation failure', 'PUT', '/v1/patient', json, '{}', 400],
    ['a body that is not JSON', 'PUT', '/v1/patient', json, '{', 400],
    ['a missing API key', 'GET', '/v1/patient/pat_1', undefined, undefined, 401],
    ['an unknown record', 'GET', '/v1/patient/pat_1', none, undefined, 404],
    ['an unknown path', 'GET', '/v1/nothing-here', undefined, undefined, 404],
    ['an oversize body', 'PUT', '/v1/patient', json, JSON.stringify({ notes: 'x'.repeat(5000) }), 413],
    ['another content type', 'PUT', '/v1/patient', { 'content-type': 'text/plain' }, 'hello', 415],
    ['an operation not built yet', 'GET', NOT_BUILT, none, undefined, 501],
  ])('of %s carries the request id of its x-request-id header', async (_name, method, path, headers, body, status) => {
    // `headers` undefined: the request carries no API key.
    const authorization: Record<string, string> = headers ? { authorization: `ApiKey ${acme.sandbox_api_key}` } : {};
    const res = await fetch(`${t.baseUrl}${path}`, { method, headers: { ...headers, ...authorization }, body });
    expect(res.status).toBe(status);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    expect(await res.json()).toMatchObject({ statusCode: status, request_id: requestId });
  });
});

describe('a 501', () => {
  it('is logged as a warning without a stack, not as an error', async () => {
    const logged: Record<string, unknown>[] = [];
    const app = await startTestApp({}, { log: (entry) => logged.push(entry) });
    try {
      const { sandbox_api_key } = await app.customer();
      const res = await fetch(`${app.baseUrl}${NOT_BUILT}`, { headers: { authorization: `ApiKey ${sandbox_api_key}` } });
      expect(res.status).toBe(501);
      const lines = logged.filter((entry) => entry.reqId === res.headers.get('x-request-id'));
      const failure = lines.find((entry) => entry.msg === 'not implemented');
      expect(failure).toMatchObject({ level: 40, statusCode: 501 });
      expect(JSON.stringify(lines)).not.toMatch(/stack|"level":50/);
    } finally {
      await app.close();
    }
  });
});
