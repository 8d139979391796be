// Rate limits: each API key has its own budget of requests, each client address its own budget
// of requests without credentials, and a much smaller one of failed authentications, after
// which its requests are refused before any key is looked up. Every refusal is a 429 in the
// seed's shape with Retry-After; every counted answer says where its limit stands.
import { afterEach, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(env: Record<string, string>): Promise<{ t: TestApp; acme: NewCustomer; globex: NewCustomer }> {
  const started = await startTestAppWithCustomers(env);
  t = started.t;
  return started;
}

const patientPath = '/v1/patient/pat_unknown';
const asKey = (key: string) => ({ headers: { authorization: `ApiKey ${key}` } });

/** The RateLimit fields of an answer (draft-ietf-httpapi-ratelimit-headers). */
const limitOf = (headers: Headers) => ({
  limit: headers.get('ratelimit-limit'),
  remaining: headers.get('ratelimit-remaining'),
  reset: Number(headers.get('ratelimit-reset')),
});

const tooMany = { statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/^Too many requests; retry in \d+ seconds?\.$/) };

describe('failed authentications from one address', () => {
  it('are answered 401 up to the limit, then 429 with Retry-After, before any key is looked up', async () => {
    const { t, acme } = await start({ RATE_LIMIT_AUTH_FAILURES_MAX: '5' });
    let lookups = 0;
    const keys = t.app.services.apiKeys;
    const authenticate = keys.authenticate.bind(keys);
    keys.authenticate = async (key) => (lookups++, authenticate(key));

    for (let n = 1; n <= 5; n++) {
      const res = await t.raw('GET', patientPath, asKey(`sk_sandbox_guess${n}`));
      expect(res.status).toBe(401);
      expect(limitOf(res.headers)).toMatchObject({ limit: '5', remaining: String(5 - n) });
    }
    expect(lookups).toBe(5);

    for (const key of ['sk_sandbox_guess6', acme.sandbox_api_key]) {
      const refused = await t.raw('GET', patientPath, asKey(key));
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ ...tooMany, request_id: refused.headers.get('x-request-id') });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limitOf(refused.headers)).toMatchObject({ limit: '5', remaining: '0' });
      expect(limitOf(refused.headers).reset).toBeGreaterThan(0);
    }
    expect(lookups).toBe(5);
  });

  it('count requests without credentials too, and pass again once the window is over', async () => {
    // A window of 3 s: the three requests must land in one window, and on busy cores (other test files
    // running beside this one) the first answers alone can take a second.
    const { t } = await start({ RATE_LIMIT_AUTH_FAILURES_MAX: '2', RATE_LIMIT_WINDOW_MS: '3000' });
    expect((await t.raw('GET', patientPath)).status).toBe(401);
    expect((await t.raw('GET', patientPath)).status).toBe(401);
    expect((await t.raw('GET', patientPath)).status).toBe(429);
    await new Promise((r) => setTimeout(r, 3100));
    expect((await t.raw('GET', patientPath)).status).toBe(401);
  });
});

describe("an API key's requests", () => {
  it('under the limit are served as usual, each telling what remains', async () => {
    const { t, acme } = await start({ RATE_LIMIT_MAX: '5' });
    for (let n = 1; n <= 5; n++) {
      const res = await t.raw('GET', patientPath, asKey(acme.sandbox_api_key));
      expect(res.status).toBe(404);
      expect(limitOf(res.headers)).toMatchObject({ limit: '5', remaining: String(5 - n) });
    }
  });

  it('over the limit are refused, and limit no other key (of another customer or environment)', async () => {
    const { t, acme, globex } = await start({ RATE_LIMIT_MAX: '3' });
    for (let n = 0; n < 3; n++) expect((await t.raw('GET', patientPath, asKey(acme.sandbox_api_key))).status).toBe(404);
    const refused = await t.raw('GET', patientPath, asKey(acme.sandbox_api_key));
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual(tooMany);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    for (const key of [globex.sandbox_api_key, acme.production_api_key]) {
      const res = await t.raw('GET', patientPath, asKey(key));
      expect(res.status).toBe(404);
      expect(limitOf(res.headers)).toMatchObject({ limit: '3', remaining: '2' });
    }
  });
});

describe('requests that authenticate as no one', () => {
  it('count per address: public operations and unknown paths alike', async () => {
    const { t } = await start({ RATE_LIMIT_ANONYMOUS_MAX: '2' });
    expect((await fetch(`${t.baseUrl}/v1/open-api/api.yml`)).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/v1/nothing-here`)).status).toBe(404);
    const refused = await t.raw('GET', '/v1/open-api/api.yml');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual(tooMany);
  });
});

describe('RATE_LIMIT_ENABLED=false', () => {
  it('counts nothing and refuses nothing', async () => {
    const { t } = await start({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_AUTH_FAILURES_MAX: '1' });
    for (let n = 0; n < 3; n++) {
      const res = await t.raw('GET', patientPath, asKey('sk_sandbox_guess'));
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });
});
