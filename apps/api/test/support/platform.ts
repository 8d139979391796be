import { SignJWT, type JWTPayload } from 'jose';
import { expect } from 'vitest';
import { signingKeyOf } from '../../src/crypto/signing-keys.js';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import type { RawResponse, TestApp } from './test-app.js';
import { TEST_TOKEN_SIGNING_KEY } from './test-keys.js';
/** The audience and issuer the test apps use (the defaults). */
export const AUDIENCE = 'https://api.pharmacy.example.com';
export const issuerOf = (tenantId: string) => `https://${tenantId}.auth.pharmacy.example.com/`;

/** `POST /oauth/token` with a JSON body (validated against the spec like every raw call). */
export function exchange(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RawResponse> {
  return t.raw('POST', '/oauth/token', { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** The client credentials body of a customer's client in an environment. */
export function credentialsOf(customer: NewCustomer, environment: 'sandbox' | 'production' = 'sandbox') {
  return {
    client_id: environment === 'sandbox' ? customer.sandbox_client_id : customer.production_client_id,
    client_secret: environment === 'sandbox' ? customer.sandbox_client_secret : customer.production_client_secret,
    audience: customer.audience,
    grant_type: 'client_credentials',
  };
}

/** A bearer token of the customer's client in an environment, through the token exchange. */
export async function accessToken(t: TestApp, customer: NewCustomer, environment: 'sandbox' | 'production' = 'sandbox', scope?: string): Promise<string> {
  const res = await exchange(t, { ...credentialsOf(customer, environment), ...(scope === undefined ? {} : { scope }) });
  expect(res.status).toBe(200);
  return res.json.access_token as string;
}

/** The decoded header and claims of a JWT (no verification). */
export function decodeJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, claims] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
  return { header: header!, claims: claims! };
}

/**
 * A token signed as the test app signs them (or with `seed`'s key), with the claims of a real
 * one for this client, changed by `over`; `header` changes the protected header. For the
 * stories of tokens the service must refuse.
 */
export async function forgeToken(
  customer: NewCustomer,
  over: JWTPayload = {},
  { seed = TEST_TOKEN_SIGNING_KEY, header = {}, environment = 'sandbox' }: { seed?: string; header?: Record<string, unknown>; environment?: 'sandbox' | 'production' } = {},
): Promise<string> {
  const key = signingKeyOf(Buffer.from(seed, 'base64'));
  const clientId = environment === 'sandbox' ? customer.sandbox_client_id : customer.production_client_id;
  const now = Math.floor(Date.now() / 1000);
  const claims: JWTPayload = {
    iss: issuerOf(customer.tenant_id),
    aud: AUDIENCE,
    sub: clientId,
    client_id: clientId,
    tenant_id: customer.tenant_id,
    environment,
    scope: 'accounts:consents:create accounts:delete',
    iat: now,
    exp: now + 3600,
    jti: `jti${now}${Math.random().toString(36).slice(2)}`,
    ...over,
  };
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'at+jwt', ...header }).sign(key.privateKey);
}

/** A JWT with no signature at all (`alg: none`), which no verifier may accept. */
export function unsignedToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'at+jwt' })}.${part(claims)}.`;
}
