import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { AUDIENCE, credentialsOf, decodeJwt, exchange, issuerOf } from './support/platform.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
/** A client of Acme's production granted one scope only. */
let narrow: { client_id: string; client_secret: string };
/** A client of Acme's sandbox, revoked. */
let revoked: { client_id: string; client_secret: string };

beforeAll(async () => {
  t = await startTestApp();
  acme = await t.customer('Acme Health');
  narrow = await t.app.services.oauthClients.create(acme.customer_id, 'production', ['accounts:consents:create']);
  revoked = await t.app.services.oauthClients.create(acme.customer_id, 'sandbox');
  await t.app.services.oauthClients.revoke(revoked.client_id);
});
afterAll(async () => t?.close());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('a client exchanging its credentials', () => {
  it('gets a signed token for its tenant and environment, never cached', async () => {
    const res = await exchange(t, credentialsOf(acme, 'sandbox'));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'accounts:consents:create accounts:delete' });
    const { header, claims } = decodeJwt(res.json.access_token);
    const jwks = await t.raw('GET', '/.well-known/jwks.json');
    expect(header).toEqual({ alg: 'EdDSA', typ: 'at+jwt', kid: jwks.json.keys[0].kid });
    expect(claims).toEqual({
      iss: issuerOf(acme.tenant_id),
      aud: AUDIENCE,
      sub: acme.sandbox_client_id,
      client_id: acme.sandbox_client_id,
      tenant_id: acme.tenant_id,
      environment: 'sandbox',
      scope: 'accounts:consents:create accounts:delete',
      iat: expect.any(Number),
      exp: (claims.iat as number) + 3600,
      jti: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
    });
    expect(acme.tenant_id).toMatch(/^acme-health-[a-z0-9]{8}$/);
  });

  it.each([
    ['form-encoded, as OAuth 2.0 clients send it', () => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(credentialsOf(acme, 'production')) })],
    [
      'with HTTP Basic client authentication',
      () => ({
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(acme.production_client_id, acme.production_client_secret) },
        body: form({ grant_type: 'client_credentials', audience: AUDIENCE }),
      }),
    ],
    ['with parameters the grant does not use, which are ignored', () => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...credentialsOf(acme, 'production'), resource: 'x', extra: 1 }) })],
  ])('is answered %s', async (_, request) => {
    const res = await t.raw('POST', '/oauth/token', request());
    expect(res.status).toBe(200);
    expect(decodeJwt(res.json.access_token).claims).toMatchObject({ sub: acme.production_client_id, environment: 'production' });
  });

  it('narrows the token to the scopes it asks for, each granted to it', async () => {
    const res = await exchange(t, { ...credentialsOf(acme), scope: 'accounts:delete' });
    expect(res.json.scope).toBe('accounts:delete');
    expect(decodeJwt(res.json.access_token).claims.scope).toBe('accounts:delete');
  });

  it('of a client granted one scope gets that scope only', async () => {
    const res = await exchange(t, { ...narrow, audience: AUDIENCE, grant_type: 'client_credentials' });
    expect(res.json.scope).toBe('accounts:consents:create');
  });

  it('gets a fresh token each time (its own jti)', async () => {
    const [a, b] = await Promise.all([exchange(t, credentialsOf(acme)), exchange(t, credentialsOf(acme))]);
    expect(decodeJwt(a.json.access_token).claims.jti).not.toBe(decodeJwt(b.json.access_token).claims.jti);
  });
});

describe('an exchange the service refuses, in the OAuth 2.0 error shape', () => {
  const without = (field: string) => () => Object.fromEntries(Object.entries(credentialsOf(acme)).filter(([k]) => k !== field));
  const json = (body: () => Record<string, unknown>, headers: () => Record<string, string> = () => ({})) => () => ({
    headers: { 'content-type': 'application/json', ...headers() },
    body: JSON.stringify(body()),
  });
  const cases: [string, () => { headers: Record<string, string>; body: string }, number, string, string | RegExp][] = [
    ['without grant_type', json(without('grant_type')), 400, 'invalid_request', 'grant_type is required'],
    ['without audience', json(without('audience')), 400, 'invalid_request', 'audience is required'],
    ['with an empty audience', json(() => ({ ...credentialsOf(acme), audience: '' })), 400, 'invalid_request', 'audience is not allowed to be empty'],
    ['with a body that is not JSON', () => ({ headers: { 'content-type': 'application/json' }, body: '{"grant_type":' }), 400, 'invalid_request', 'Body is not valid JSON.'],
    ['with a parameter sent twice', () => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `${form(credentialsOf(acme))}&audience=${encodeURIComponent(AUDIENCE)}` }), 400, 'invalid_request', /^audience /],
    ['with client_id but no secret', json(without('client_secret')), 400, 'invalid_request', 'client_secret is required with client_id.'],
    ['with credentials both in HTTP Basic and the body', json(() => credentialsOf(acme), () => ({ authorization: basic(acme.sandbox_client_id, acme.sandbox_client_secret) })), 400, 'invalid_request', /not both/],
    ['for another grant', json(() => ({ ...credentialsOf(acme), grant_type: 'password' })), 400, 'unsupported_grant_type', 'Only the client_credentials grant is supported.'],
    ['of an unknown client', json(() => ({ ...credentialsOf(acme), client_id: 'nobody' })), 401, 'invalid_client', 'Client authentication failed.'],
    ['with a wrong secret', json(() => ({ ...credentialsOf(acme), client_secret: `${acme.sandbox_client_secret}x` })), 401, 'invalid_client', 'Client authentication failed.'],
    ['with another environment’s secret', json(() => ({ ...credentialsOf(acme), client_secret: acme.production_client_secret })), 401, 'invalid_client', 'Client authentication failed.'],
    ['with no client authentication at all', json(() => ({ audience: AUDIENCE, grant_type: 'client_credentials' })), 401, 'invalid_client', 'Client authentication failed.'],
    ['with a malformed HTTP Basic header', json(() => ({ audience: AUDIENCE, grant_type: 'client_credentials' }), () => ({ authorization: 'Basic !!!' })), 401, 'invalid_client', 'Client authentication failed.'],
    ['of a revoked client', json(() => ({ ...revoked, audience: AUDIENCE, grant_type: 'client_credentials' })), 401, 'invalid_client', 'Client authentication failed.'],
    ['for another audience', json(() => ({ ...credentialsOf(acme), audience: 'https://api.other.example.com' })), 400, 'access_denied', 'The client is not authorized to access "https://api.other.example.com".'],
    ['for a scope not granted to the client', json(() => ({ ...narrow, audience: AUDIENCE, grant_type: 'client_credentials', scope: 'accounts:delete' })), 400, 'invalid_scope', 'The client is not granted the scope "accounts:delete".'],
    ['for a scope that does not exist', json(() => ({ ...credentialsOf(acme), scope: 'accounts:consents:create patients:read' })), 400, 'invalid_scope', 'The client is not granted the scope "patients:read".'],
  ];

  it.each(cases)('%s', async (_, request, status, error, description) => {
    const res = await t.raw('POST', '/oauth/token', request());
    expect(res.status).toBe(status);
    expect(res.json).toEqual({ error, error_description: description instanceof RegExp ? expect.stringMatching(description) : description, request_id: expect.any(String) });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('www-authenticate')).toBe(status === 401 ? 'Basic realm="pharmacy"' : null);
  });

  it('keeps the service’s own shape for the edge’s answers (415)', async () => {
    const res = await t.raw('POST', '/oauth/token', { headers: { 'content-type': 'text/plain' }, body: 'grant_type=client_credentials' });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ statusCode: 415, error: 'Unsupported Media Type' });
  });
});

describe('the keys that verify tokens', () => {
  it('are published as a JSON Web Key Set, cacheable for five minutes', async () => {
    const res = await t.raw('GET', '/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.json).toEqual({ keys: [{ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: expect.any(String) }] });
  });
});
