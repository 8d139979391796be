import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { credentialsOf, decodeJwt } from './support/platform.js';
import { TEST_TOKEN_SIGNING_KEY } from './support/test-keys.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { TEST_SECRETS_KEY } from './support/webhook-receiver.js';

const NEW_KEY = Buffer.alloc(32, 12).toString('base64');

let t: TestApp;
let acme: NewCustomer;
const others: App[] = [];
beforeAll(async () => {
  t = await startTestApp();
  acme = await t.customer('Acme');
});
afterAll(async () => {
  for (const app of others) await app.fastify.close();
  await t?.close();
});

/** Another process of the service on the same database, with these signing keys. */
async function processWith(env: Record<string, string>): Promise<App> {
  const config = loadConfig({ LOG_LEVEL: 'silent', SECRETS_KEY: TEST_SECRETS_KEY, RATE_LIMIT_ENABLED: 'false', ...env });
  const app = await buildApp({ config, database: t.database.handle, workers: false });
  others.push(app);
  return app;
}

async function tokenFrom(app: App): Promise<string> {
  const res = await app.fastify.inject({ method: 'POST', url: '/oauth/token', payload: credentialsOf(acme) });
  expect(res.statusCode).toBe(200);
  return res.json().access_token;
}

/** What the process answers a bearer call (200: the token passed). */
async function statusWith(app: App, token: string): Promise<number> {
  return (await app.fastify.inject({ method: 'GET', url: '/diagnostics/v0/tests', headers: { authorization: `Bearer ${token}` } })).statusCode;
}

describe('a rotation of the token signing key', () => {
  it('keeps tokens signed by the previous key verifying, signs new ones with the new key, and publishes both', async () => {
    const before = await processWith({ TOKEN_SIGNING_KEY: TEST_TOKEN_SIGNING_KEY });
    const old = await tokenFrom(before);
    const rotated = await processWith({ TOKEN_SIGNING_KEY: NEW_KEY, TOKEN_SIGNING_KEY_PREVIOUS: TEST_TOKEN_SIGNING_KEY });
    const fresh = await tokenFrom(rotated);

    expect(await statusWith(rotated, old)).toBe(200);
    expect(await statusWith(rotated, fresh)).toBe(200);
    const keys = (await rotated.fastify.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json().keys as { kid: string }[];
    expect(keys.map((k) => k.kid)).toEqual([decodeJwt(fresh).header.kid, decodeJwt(old).header.kid]);
    // A process not rotated yet does not know the new key; one past the rotation no longer holds the old.
    expect(await statusWith(before, fresh)).toBe(401);
    const after = await processWith({ TOKEN_SIGNING_KEY: NEW_KEY });
    expect(await statusWith(after, old)).toBe(401);
    expect(await statusWith(after, fresh)).toBe(200);
  });
});

describe('the signing key of the embedded database, when TOKEN_SIGNING_KEY is unset', () => {
  it('is generated once into token-signing.key beside the database (mode 0600), so tokens outlive a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pharmacy-signing-'));
    const databaseUrl = join(dir, 'pharmacy.db');
    const database = openDatabase(databaseUrl);
    try {
      await migrateToLatest(database);
      const config = loadConfig({ LOG_LEVEL: 'silent', SECRETS_KEY: TEST_SECRETS_KEY, DATABASE_URL: databaseUrl });
      const first = await buildApp({ config, database, workers: false });
      const customer = await first.services.customers.create('Local');
      const issued = await first.fastify.inject({ method: 'POST', url: '/oauth/token', payload: credentialsOf(customer) });
      await first.fastify.close();
      expect(statSync(join(dir, 'token-signing.key')).mode & 0o777).toBe(0o600);

      const restarted = await buildApp({ config, database, workers: false });
      const res = await restarted.fastify.inject({ method: 'GET', url: '/diagnostics/v0/tests', headers: { authorization: `Bearer ${issued.json().access_token}` } });
      await restarted.fastify.close();
      expect(res.statusCode).toBe(200);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('PostgreSQL without TOKEN_SIGNING_KEY', () => {
  it('starts, but refuses to issue tokens with a 500 whose log names the setting', async () => {
    const lines: string[] = [];
    const config = loadConfig({ LOG_LEVEL: 'error', SECRETS_KEY: TEST_SECRETS_KEY, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    const app = await buildApp({ config, database: t.database.handle, workers: false, logger: { level: 'error', stream: { write: (line: string) => lines.push(line) } } });
    others.push(app);
    const res = await app.fastify.inject({ method: 'POST', url: '/oauth/token', payload: credentialsOf(acme) });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ statusCode: 500, message: 'An internal server error occurred.' });
    expect(lines.join('\n')).toContain('TOKEN_SIGNING_KEY is required on PostgreSQL');
  });
});
