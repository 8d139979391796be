import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { accessToken, AUDIENCE, forgeToken, issuerOf, unsignedToken } from './support/platform.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  // These stories fail authentication on purpose, more often than the limit on failures allows.
  t = await startTestApp({ RATE_LIMIT_ENABLED: 'false' });
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
});
afterAll(async () => t?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const platform401 = { statusCode: 401, error: 'Unauthorized', message: 'Authorization missing or invalid' };
const apiKey401 = { statusCode: 401, error: 'Unauthorized', message: 'Please Send a Valid Api-Key' };


describe('a diagnostics or consult operation (API key or bearer token)', () => {
  it.each([
    ['a bearer token', () => bearer(acmeToken)],
    ['the pharmacy API key', () => ({ authorization: `ApiKey ${acme.sandbox_api_key}` })],
  ])('is reached with %s: authentication runs first, then the operation', async (_, headers) => {
    const kits = await t.raw('GET', '/diagnostics/v0/kits', { headers: headers() });
    expect(kits.status).toBe(200);
    expect(kits.json.length).toBeGreaterThan(0);
    const consults = await t.raw('GET', '/consults/v0', { headers: headers() });
    expect(consults.status).toBe(200);
    expect(consults.json).toEqual([]);
  });

  it('knows the same customer and environment from either, as the audit trail shows', async () => {
    const token = await accessToken(t, acme, 'production');
    expect((await t.raw('GET', '/diagnostics/v0/orders', { headers: bearer(token) })).status).toBe(200);
    expect((await t.raw('GET', '/diagnostics/v0/orders', { headers: { authorization: `ApiKey ${acme.production_api_key}` } })).status).toBe(200);
    await t.app.services.audit.flush();
    const events = await t.app.services.audit.find({ customerId: acme.customer_id, operation: 'listDiagnosticOrders', limit: 10 });
    expect(events.map((e) => ({ environment: e.environment, actor: e.actor_type }))).toEqual([
      { environment: 'production', actor: 'api_key' },
      { environment: 'production', actor: 'client' },
    ]);
    expect(events[1]!.actor_id).toBe(acme.production_client_id);
  });

  it.each([
    ['diagnostics: nothing answers the platform 401 with both challenges', '/diagnostics/v0/kits', {}, platform401, 'Bearer realm="pharmacy", ApiKey realm="pharmacy"'],
    ['consults: nothing answers the pharmacy 401 (the source secures it with the API key)', '/consults/v0', {}, apiKey401, 'ApiKey realm="pharmacy", Bearer realm="pharmacy"'],
    ['an unknown API key answers the pharmacy 401', '/diagnostics/v0/kits', { authorization: 'ApiKey sk_live_nobody' }, apiKey401, 'Bearer realm="pharmacy", ApiKey realm="pharmacy"'],
    ['a token that is not a JWT answers the platform 401', '/consults/v0', bearer('not-a-token'), platform401, 'ApiKey realm="pharmacy", Bearer realm="pharmacy", error="invalid_token"'],
    ['"Bearer" with no token answers the platform 401', '/diagnostics/v0/kits', { authorization: 'Bearer' }, platform401, 'Bearer realm="pharmacy", error="invalid_token", ApiKey realm="pharmacy"'],
  ])('is refused: %s', async (_, path, headers, body, challenge) => {
    const res = await t.raw('GET', path, { headers: headers as Record<string, string> });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(body);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
  });
});

let acmeToken: string;
beforeAll(async () => {
  acmeToken = await accessToken(t, acme);
});

describe('a bearer token the service refuses with 401', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const otherKey = Buffer.alloc(32, 99).toString('base64');
  const cases: [string, () => Promise<string>][] = [
    ['tampered: a claim changed after signing', async () => {
      const [header, , signature] = acmeToken.split('.');
      const claims = JSON.parse(Buffer.from(acmeToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
      return `${header}.${Buffer.from(JSON.stringify({ ...claims, environment: 'production' })).toString('base64url')}.${signature}`;
    }],
    ['with its signature cut off', async () => acmeToken.split('.').slice(0, 2).join('.') + '.'],
    ['expired', () => forgeToken(acme, { iat: now() - 7200, exp: now() - 3600 })],
    ['expired beyond the 30 seconds of clock skew', () => forgeToken(acme, { iat: now() - 3660, exp: now() - 60 })],
    ['not valid yet (nbf in the future)', () => forgeToken(acme, { nbf: now() + 600 })],
    ['signed by a key the service does not hold', () => forgeToken(acme, {}, { seed: otherKey })],
    ['naming a kid of no key', () => forgeToken(acme, {}, { header: { kid: 'nope' } })],
    ['unsigned (alg: none)', async () => unsignedToken({ iss: issuerOf(acme.tenant_id), aud: AUDIENCE, sub: acme.sandbox_client_id, client_id: acme.sandbox_client_id, tenant_id: acme.tenant_id, environment: 'sandbox', scope: '', iat: now(), exp: now() + 600, jti: 'x' })],
    ['for another audience', () => forgeToken(acme, { aud: 'https://api.other.example.com' })],
    ['from another issuer', () => forgeToken(acme, { iss: 'https://evil.example.com/' })],
    ['of another tenant than its client’s', () => forgeToken(acme, { tenant_id: globex.tenant_id, iss: issuerOf(globex.tenant_id) })],
    ['of another environment than its client’s', () => forgeToken(acme, { environment: 'production' })],
    ['of an unknown client', () => forgeToken(acme, { sub: 'nobody', client_id: 'nobody' })],
    ['whose subject is not its client', () => forgeToken(acme, { sub: acme.production_client_id })],
    ['of another type than an access token (typ JWT)', () => forgeToken(acme, {}, { header: { typ: 'JWT' } })],
    ['without a jti', () => forgeToken(acme, { jti: undefined })],
  ];

  it.each(cases)('%s', async (_, token) => {
    const res = await t.raw('GET', '/diagnostics/v0/kits', { headers: bearer(await token()) });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(platform401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="pharmacy", error="invalid_token", ApiKey realm="pharmacy"');
  });

  it('is accepted within the clock skew, as forged tokens with the right key are (the cases above fail for their reason alone)', async () => {
    expect((await t.raw('GET', '/diagnostics/v0/kits', { headers: bearer(await forgeToken(acme, { iat: now() - 3610, exp: now() - 10 })) })).status).toBe(200);
  });

  it('of a client revoked after the token was issued', async () => {
    const client = await t.app.services.oauthClients.create(acme.customer_id, 'sandbox');
    const res = await t.raw('POST', '/oauth/token', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...client, audience: AUDIENCE, grant_type: 'client_credentials' }),
    });
    const token = res.json.access_token as string;
    expect((await t.raw('GET', '/diagnostics/v0/kits', { headers: bearer(token) })).status).toBe(200);
    await t.app.services.oauthClients.revoke(client.client_id);
    const refused = await t.raw('GET', '/diagnostics/v0/kits', { headers: bearer(token) });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual(platform401);
  });
});

describe('a bearer token and x-tenant-id together', () => {
  it('match no route on a bearer operation (404)', async () => {
    const res = await t.raw('GET', '/diagnostics/v0/kits', { headers: { ...bearer(acmeToken), 'x-tenant-id': acme.tenant_id } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ statusCode: 404, error: 'Not Found', message: 'Resource Not Found.' });
  });

  it('match no route on a tenant-routed operation (404); an invalid token beside the tenant id is no token', async () => {
    const body = JSON.stringify({ email: 'jo@example.com', password: 'Sunrise2026' });
    const headers = { 'content-type': 'application/json', 'x-tenant-id': acme.tenant_id };
    const both = await t.raw('POST', '/public/accounts', { headers: { ...headers, ...bearer(acmeToken) }, body });
    expect(both.status).toBe(404);
    const withForged = await t.raw('POST', '/public/accounts', { headers: { ...headers, ...bearer('forged') }, body: JSON.stringify({ email: 'jo2@example.com', password: 'Sunrise2026' }) });
    expect(withForged.status).not.toBe(404);
  });
});

describe('x-tenant-id routing', () => {
  const create = (headers: Record<string, string>) =>
    t.raw('POST', '/public/accounts', { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ email: `x${Math.random()}@example.com`, password: 'Sunrise2026' }) });

  it.each([
    ['missing', {}],
    ['naming no tenant', { 'x-tenant-id': 'nobody-12345678' }],
    ['a bearer token instead of the tenant id', bearer('x')],
  ])('refuses a tenant id %s with the platform 401', async (_, headers) => {
    const res = await create(headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(res.json).toEqual(platform401);
  });
});

describe('an operation naming a scope', () => {
  it('answers 403 with the RFC 6750 challenge to a valid token without the scope', async () => {
    const token = await accessToken(t, acme, 'sandbox', 'accounts:consents:create');
    const res = await t.raw('DELETE', '/accounts/acc_1', { headers: bearer(token) });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ statusCode: 403, error: 'Forbidden', message: 'The access token lacks the scope accounts:delete.' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="pharmacy", error="insufficient_scope", scope="accounts:delete"');
  });

  it('answers 401 to an API key: the accounts interface takes bearer tokens only', async () => {
    const res = await t.raw('DELETE', '/accounts/acc_1', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(platform401);
  });
});
