import { readFileSync } from 'node:fs';
import { openApiDocumentPath } from '@pharmacy/contract';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiKeyCaller, Principal } from '../src/auth/principal.js';
import { ApiKeyScheme } from '../src/auth/schemes/api-key.js';
import type { SecurityScheme } from '../src/auth/security-scheme.js';
import { securitySchemes, type SecuritySchemes } from '../src/auth/security-schemes.js';
import { HttpError } from '../src/errors.js';
import type { Handlers } from '../src/generated/handlers.js';
import { routes } from '../src/generated/routes.js';
import { installErrorHandling } from '../src/http/error-handler.js';
import { registerOperations } from '../src/http/register-operations.js';
import type { SecurityRequirement } from '../src/http/route-definition.js';
import { securityHook } from '../src/http/security.js';
import type { Services } from '../src/services.js';

/**
 * Fake schemes, each reading its own header: `valid` authenticates, anything else is
 * invalid credentials of that scheme, and no header means no credentials of it.
 */
function unauthorized(message: string): HttpError {
  return new HttpError(401, { statusCode: 401, error: 'Unauthorized', message });
}

function headerScheme(header: string, principal: Principal): SecurityScheme {
  return {
    async authenticate(request) {
      const value = request.headers[header];
      if (value === undefined) return null;
      if (value !== 'valid') throw unauthorized(`Invalid ${header}.`);
      return principal;
    },
    missing: () => unauthorized(`Send ${header}.`),
  };
}

const badgeHolder: Principal = { kind: 'api-key', customerId: 'cus_badge', environment: 'sandbox', keyId: 'k1' };
const passHolder: Principal = { kind: 'tenant', customerId: 'cus_pass' };

/** A bearer scheme whose token is the comma-separated list of the scopes it grants. */
const tokenScheme: SecurityScheme = {
  async authenticate(request) {
    const token = request.headers['x-token'];
    if (typeof token !== 'string') return null;
    return { kind: 'bearer', customerId: 'cus_token', environment: 'production', clientId: 'client_1', scopes: token.split(',').filter(Boolean) };
  },
  missing: () => unauthorized('Send x-token.'),
};

const registry: SecuritySchemes = {
  Badge: headerScheme('x-badge', badgeHolder),
  Pass: headerScheme('x-pass', passHolder),
  Token: tokenScheme,
};

/** An app with one operation secured by these requirements, answering the principal it was given. */
let app: FastifyInstance | undefined;
async function operationSecuredBy(security: SecurityRequirement[], schemes: SecuritySchemes = registry): Promise<FastifyInstance> {
  app = Fastify();
  app.decorateRequest('principal', null);
  installErrorHandling(app);
  const onRequest = securityHook(security, schemes, 'doSomething');
  app.get('/something', { ...(onRequest ? { onRequest } : {}) }, async (request) => ({ principal: request.principal }));
  await app.ready();
  return app;
}
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function call(security: SecurityRequirement[], headers: Record<string, string>, schemes?: SecuritySchemes) {
  const server = await operationSecuredBy(security, schemes);
  const res = await server.inject({ method: 'GET', url: '/something', headers });
  return { status: res.statusCode, body: res.json() };
}

describe('an operation whose security lists several ways to authorize', () => {
  const badgeOrPass: SecurityRequirement[] = [{ Badge: [] }, { Pass: [] }];

  it.each([
    ['shows only a pass: the second scheme lets it in', { 'x-pass': 'valid' }, passHolder],
    ['shows only a badge: the first scheme lets it in', { 'x-badge': 'valid' }, badgeHolder],
    ['shows both: the first scheme in the spec decides', { 'x-badge': 'valid', 'x-pass': 'valid' }, badgeHolder],
  ])('a caller who %s', async (_, headers, principal) => {
    expect(await call(badgeOrPass, headers)).toEqual({ status: 200, body: { principal } });
  });

  it.each([
    ['a forged badge hears the badge scheme’s 401', { 'x-badge': 'forged' }, 'Invalid x-badge.'],
    ['a forged badge and a valid pass still hears the badge’s 401 (the first scheme with credentials decides)', { 'x-badge': 'forged', 'x-pass': 'valid' }, 'Invalid x-badge.'],
    ['nothing hears the first scheme’s 401', {}, 'Send x-badge.'],
  ])('a caller who shows %s', async (_, headers, message) => {
    expect(await call(badgeOrPass, headers)).toEqual({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message } });
  });

  it('skips a scheme the service cannot check yet: the first registered one answers for it', async () => {
    const security: SecurityRequirement[] = [{ Retina: [] }, { Pass: [] }];
    expect(await call(security, { 'x-pass': 'valid' })).toEqual({ status: 200, body: { principal: passHolder } });
    expect(await call(security, {})).toEqual({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'Send x-pass.' } });
  });

  it('answers 501 for every request when none of its schemes is registered, never serving it unauthenticated', async () => {
    const security: SecurityRequirement[] = [{ Retina: [] }, { Fingerprint: [] }];
    for (const headers of [{}, { 'x-badge': 'valid' }] as Record<string, string>[]) {
      expect(await call(security, headers)).toEqual({
        status: 501,
        body: { statusCode: 501, error: 'Not Implemented', message: 'Authentication with Retina is not implemented yet.' },
      });
    }
  });

  it('is public when the list is empty: no scheme runs and there is no principal', async () => {
    expect(await call([], { 'x-badge': 'forged' })).toEqual({ status: 200, body: { principal: null } });
  });
});

describe('an operation whose security entry names scopes', () => {
  const deleteScope: SecurityRequirement[] = [{ Token: ['accounts:delete'] }];
  const forbidden = (scope: string) => ({ status: 403, body: { statusCode: 403, error: 'Forbidden', message: `The access token lacks the scope ${scope}.` } });

  it.each([
    ['without the scope is refused with 403', 'accounts:read', forbidden('accounts:delete')],
    ['without any scope is refused with 403', '', forbidden('accounts:delete')],
    ['with the scope passes', 'accounts:read,accounts:delete', { status: 200 }],
  ])('a bearer token %s', async (_, scopes, expected) => {
    expect(await call(deleteScope, { 'x-token': scopes })).toMatchObject(expected);
  });

  it('needs every scope of the entry', async () => {
    const both: SecurityRequirement[] = [{ Token: ['a', 'b'] }];
    expect(await call(both, { 'x-token': 'a' })).toEqual(forbidden('b'));
    expect(await call(both, { 'x-token': 'b,a' })).toMatchObject({ status: 200 });
  });

  it('passes when any of the entries naming the same scheme is satisfied', async () => {
    const either: SecurityRequirement[] = [{ Token: ['a'] }, { Token: ['b'] }];
    expect(await call(either, { 'x-token': 'b' })).toMatchObject({ status: 200 });
    expect(await call(either, { 'x-token': 'c' })).toEqual(forbidden('a'));
  });

  it('refuses callers that hold no scopes at all (API keys, tenants)', async () => {
    expect(await call([{ Badge: ['accounts:delete'] }], { 'x-badge': 'valid' })).toEqual(forbidden('accounts:delete'));
  });
});

describe('a security entry naming several schemes at once (AND)', () => {
  it('is refused when the hook is built', () => {
    expect(() => securityHook([{ Badge: [], Pass: [] }], registry, 'doSomething')).toThrow(
      'Operation doSomething: a security requirement naming several schemes at once (Badge AND Pass) is not supported',
    );
  });

  it('stops the service from registering its routes', () => {
    const services = { openApiDocument: readFileSync(openApiDocumentPath, 'utf8'), apiKeys: { authenticate: async () => null } } as unknown as Services;
    const route = { operationId: 'getPatient', method: 'GET', path: '/v1/both', security: [{ ApiKey: [], BearerJwt: [] }], responses: {} };
    app = Fastify();
    expect(() => registerOperations(app!, [route], {} as Handlers, services)).toThrow(/getPatient: .*ApiKey AND BearerJwt\) is not supported/);
  });
});

describe('the ApiKey scheme', () => {
  const caller: ApiKeyCaller = { kind: 'api-key', customerId: 'cus_1', environment: 'production', keyId: 'k1' };
  const scheme = new ApiKeyScheme({ authenticate: async (key) => (key === 'sk_live_good' ? caller : null) });
  const withAuthorization = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as FastifyRequest;
  const invalidKey = { statusCode: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'Please Send a Valid Api-Key' } };

  it.each([
    ['ApiKey sk_live_good'],
    ['apikey sk_live_good'],
    ['  APIKEY   sk_live_good  '],
  ])('knows the caller of %j (the scheme word in any case)', async (authorization) => {
    expect(await scheme.authenticate(withAuthorization(authorization))).toEqual(caller);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a bearer token, which a later scheme may take', 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln'],
  ])('finds no credentials in a request with %s', async (_, authorization) => {
    expect(await scheme.authenticate(withAuthorization(authorization))).toBeNull();
  });

  it.each([
    ['an unknown key', 'ApiKey sk_live_unknown'],
    ['no key after the scheme word', 'ApiKey'],
    ['two words after the scheme word', 'ApiKey sk_live_good extra'],
  ])('refuses %s with the exact 401 body', async (_, authorization) => {
    await expect(scheme.authenticate(withAuthorization(authorization))).rejects.toMatchObject(invalidKey);
  });

  it('answers the same exact 401 when an operation finds no credentials at all', () => {
    expect(scheme.missing()).toMatchObject(invalidKey);
  });
});

describe('the generated route table', () => {
  const securityOf = (operationId: string) => routes.find((route) => route.operationId === operationId)?.security;

  it.each([
    ['deleteAccount', [{ OAuth2ClientCredentials: ['accounts:delete'] }]],
    ['createAccountConsent', [{ OAuth2ClientCredentials: ['accounts:consents:create'] }]],
    ['getPatient', [{ ApiKey: [] }]],
    ['createAccount', [{ TenantId: [] }]],
    ['listConsults', [{ ApiKey: [] }, { BearerJwt: [] }]],
    ['listDiagnosticKits', [{ BearerJwt: [] }, { ApiKey: [] }]],
    ['createAccessToken', []],
    ['getOpenApiDocument', []],
  ])('keeps the security requirements of %s as the spec writes them', (operationId, security) => {
    expect(securityOf(operationId)).toEqual(security);
  });

  it('names only schemes the service can check, so no operation answers 501 for its authentication', () => {
    const registered = Object.keys(securitySchemes({} as never));
    const named = new Set(routes.flatMap((route) => route.security.flatMap((requirement) => Object.keys(requirement))));
    expect([...named].sort()).toEqual(registered.sort());
  });
});
