// Reading a fill request (getFillRequest) and listing them (listFillRequests): paging, filters,
// the /api/v1 alias, and nothing of other customers or the other environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { cashBody, fillRequestSteps } from './support/fill-request-steps.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

const { patientWithPrescription, submit } = fillRequestSteps(() => ({ t, acme }));

describe('reading a fill request', () => {
  it('answers 404 for an unknown token or the other environment, and 403 for another customer’s', async () => {
    const { patient, rx } = await patientWithPrescription();
    const { data } = await submit(cashBody(patient, [rx.token]));
    const read = (key: string, url_token: string) =>
      t.client(key).GET('/v1/fill_request/{url_token}', { params: { path: { url_token } } });
    const unknown = await read(acme.sandbox_api_key, 'nosuchrequest');
    expect(unknown.error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Fill request not found.' });
    expect((await read(acme.production_api_key, data!.request_id)).response.status).toBe(404);
    const theirs = await read(globex.sandbox_api_key, data!.request_id);
    expect(theirs.response.status).toBe(403);
    expect(theirs.error).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  });
});

describe('listing fill requests', () => {
  let customer: NewCustomer;
  const tokens: string[] = [];

  beforeAll(async () => {
    customer = await t.customer('Lister');
    const { patient, rx } = await patientWithPrescription({ number_of_refills_allowed: 10, refills_remaining: 10, quantity_remaining: 1000 }, customer);
    for (let i = 0; i < 5; i++) {
      const { data } = await submit(cashBody(patient, [rx.token], { metadata: i % 2 ? 'odd' : 'even' }), customer.sandbox_api_key);
      tokens.push(data!.request_id);
    }
  });

  const list = (query: Record<string, unknown>, key = customer.sandbox_api_key) =>
    t.client(key).GET('/v1/fill_requests', { params: { query: query as never } });

  it('pages through the customer’s requests, earliest first', async () => {
    const seen: string[] = [];
    let next: string | undefined;
    do {
      const { data, response } = await list({ limit: 2, ...(next ? { next } : {}) });
      expect(response.status).toBe(200);
      expect(data!.results.length).toBeLessThanOrEqual(2);
      seen.push(...data!.results.map((r) => r.request_id));
      next = data!.next_page_token ?? undefined;
    } while (next);
    expect(seen).toEqual(tokens);
    const { data } = await list({});
    expect(data!.results[0]).toEqual({
      request_id: tokens[0],
      patient_token: expect.any(String),
      status: 'pending',
      metadata: 'even',
      shipping_method: 'usps_first',
      created_at: expect.any(String),
      order_token: null,
    });
    expect(data!.next_page_token).toBeNull();
  });

  it('filters by metadata and by creation time', async () => {
    const odd = await list({ metadata: 'odd' });
    expect(odd.data!.results.map((r) => r.request_id)).toEqual([tokens[1], tokens[3]]);
    const all = (await list({})).data!.results;
    const third = all[2]!.created_at;
    const since = await list({ created_at: `$gte:${third}` });
    expect(since.data!.results.map((r) => r.request_id)).toEqual(all.filter((r) => r.created_at >= third).map((r) => r.request_id));
    const before = await list({ created_at: `$lt:${third}` });
    expect(before.data!.results.map((r) => r.request_id)).toEqual(all.filter((r) => r.created_at < third).map((r) => r.request_id));
    expect((await list({ created_at: '$gte:2000-01-01' })).data!.results).toHaveLength(5);
    expect((await list({ created_at: '$lt:2000-01-01T00:00:00+02:00' })).data!.results).toHaveLength(0);
  });

  it('answers the same list under the /api/v1 alias', async () => {
    const direct = await list({ metadata: 'even' });
    const aliased = await t.client(customer.sandbox_api_key, { alias: true }).GET('/v1/fill_requests', { params: { query: { metadata: 'even' } } });
    expect(aliased.response.status).toBe(200);
    expect(aliased.data).toEqual(direct.data);
    expect(aliased.data!.results.map((r) => r.request_id)).toEqual([tokens[0], tokens[2], tokens[4]]);
  });

  it('shows nothing of other customers or the other environment', async () => {
    expect((await list({}, customer.production_api_key)).data!.results).toEqual([]);
    const globexList = (await list({ limit: 100 }, globex.sandbox_api_key)).data!.results.map((r) => r.request_id);
    expect(globexList.some((t) => tokens.includes(t))).toBe(false);
  });

  it('refuses a page token answered to another customer or for the other environment', async () => {
    const { data } = await list({ limit: 2 });
    const next = data!.next_page_token!;
    for (const key of [globex.sandbox_api_key, customer.production_api_key]) {
      const { error, response } = await list({ next }, key);
      expect(response.status).toBe(400);
      expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: [{ key: 'next', message: 'is not a valid page token' }] });
    }
    expect((await list({ next })).response.status).toBe(200);
  });

  it.each([
    ['a limit over 100', { limit: 101 }, 'limit'],
    ['a limit of zero', { limit: 0 }, 'limit'],
    ['created_at without an operator', { created_at: '2026-01-01' }, 'created_at'],
    ['created_at that is no date', { created_at: '$gte:2026-13-45' }, 'created_at'],
    ['a page token that is not one', { next: 'garbage' }, 'next'],
  ])('refuses %s', async (_name, query, key) => {
    const { error, response } = await list(query);
    expect(response.status).toBe(400);
    expect((error as any).validation_errors.map((e: any) => e.key)).toEqual([key]);
  });
});
