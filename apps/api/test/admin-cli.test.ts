import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, exchange } from './support/platform.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

function admin(args: string[]) {
  return run(process.execPath, ['bin/admin.mjs', ...args], { cwd: apiRoot, env: { ...process.env, DATABASE_URL: t.database.url } });
}

describe('pnpm admin create-customer', () => {
  it('prints one JSON object whose keys work once, and stores only their hashes', async () => {
    const { stdout } = await admin(['create-customer', '--name', 'Initech']);
    const created = JSON.parse(stdout);
    expect(Object.keys(created).sort()).toEqual([
      'audience',
      'customer_id',
      'production_api_key',
      'production_client_id',
      'production_client_secret',
      'sandbox_api_key',
      'sandbox_client_id',
      'sandbox_client_secret',
      'tenant_id',
    ]);
    expect(created).toMatchObject({ tenant_id: expect.stringMatching(/^initech-[a-z0-9]{8}$/), audience: AUDIENCE });

    const sandbox = await t.client(created.sandbox_api_key).PUT('/v1/patient', {
      body: { first_name: 'Cli', last_name: 'User', dob: '19700101', gender: 'male' },
    });
    expect(sandbox.response.status).toBe(201);
    const production = await t.client(created.production_api_key).GET('/v1/patient/{patient_token}', {
      params: { path: { patient_token: sandbox.data!.patient_token } },
    });
    expect(production.response.status).toBe(404);

    const rows = await t.database.handle.db.selectFrom('api_keys').selectAll().where('customer_id', '=', created.customer_id).execute();
    expect(rows.map((r) => r.environment).sort()).toEqual(['production', 'sandbox']);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(created.sandbox_api_key);
      expect(JSON.stringify(row)).not.toContain(created.production_api_key);
    }
  });

  it('prints one OAuth client per environment, granted every scope, whose secrets are stored only as hashes', async () => {
    const created = JSON.parse((await admin(['create-customer', '--name', 'Initrode'])).stdout);
    for (const environment of ['sandbox', 'production']) {
      const res = await exchange(t, {
        client_id: created[`${environment}_client_id`],
        client_secret: created[`${environment}_client_secret`],
        audience: created.audience,
        grant_type: 'client_credentials',
      });
      expect(res.status).toBe(200);
      expect(res.json.scope).toBe('accounts:consents:create accounts:delete');
    }
    const rows = await t.database.handle.db.selectFrom('oauth_clients').selectAll().where('customer_id', '=', created.customer_id).execute();
    expect(rows.map((r) => r.environment).sort()).toEqual(['production', 'sandbox']);
    for (const row of rows) {
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(created.sandbox_client_secret);
      expect(JSON.stringify(row)).not.toContain(created.production_client_secret);
    }
  });

  it('refuses a missing name with usage on stderr', async () => {
    await expect(admin(['create-customer'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--name is required') });
  });
});

describe('pnpm admin create-client, list-clients and revoke-client', () => {
  const token = (client: { client_id: string; client_secret: string }) =>
    exchange(t, { ...client, audience: AUDIENCE, grant_type: 'client_credentials' });

  it('make a client of the scopes named, list it without its secret, and revoke it', async () => {
    const customer = await t.customer();
    const made = JSON.parse(
      (await admin(['create-client', '--customer', customer.customer_id, '--environment', 'production', '--scopes', 'accounts:consents:create'])).stdout,
    );
    expect(made).toEqual({ client_id: expect.stringMatching(/^[A-Za-z0-9]{32}$/), client_secret: expect.stringMatching(/^cs_live_/), scopes: ['accounts:consents:create'] });
    const granted = await token(made);
    expect(granted.json.scope).toBe('accounts:consents:create');

    const listed = JSON.parse((await admin(['list-clients', '--customer', customer.customer_id])).stdout);
    expect(listed.clients).toHaveLength(3);
    expect(listed.clients.find((c: { client_id: string }) => c.client_id === made.client_id)).toEqual({
      client_id: made.client_id,
      environment: 'production',
      scopes: ['accounts:consents:create'],
      created_at: expect.any(String),
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(made.client_secret);

    const revoked = JSON.parse((await admin(['revoke-client', '--client', made.client_id])).stdout);
    expect(revoked).toEqual({ client_id: made.client_id, revoked_at: expect.any(String) });
    const refused = await token(made);
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ error: 'invalid_client' });
  });

  it('grant every scope without --scopes, and none with an empty one', async () => {
    const customer = await t.customer();
    const all = JSON.parse((await admin(['create-client', '--customer', customer.customer_id, '--environment', 'sandbox'])).stdout);
    expect(all.scopes).toEqual(['accounts:consents:create', 'accounts:delete']);
    const none = JSON.parse((await admin(['create-client', '--customer', customer.customer_id, '--environment', 'sandbox', '--scopes', ''])).stdout);
    expect(none.scopes).toEqual([]);
    expect((await token(none)).json.scope).toBe('');
  });

  it.each([
    ['an unknown scope', ['create-client', '--customer', 'CUSTOMER', '--environment', 'sandbox', '--scopes', 'patients:read'], 2, '--scopes: unknown scope patients:read'],
    ['an unknown environment', ['create-client', '--customer', 'CUSTOMER', '--environment', 'staging'], 2, '--environment must be sandbox or production'],
    ['an unknown customer', ['create-client', '--customer', 'cus_nobody', '--environment', 'sandbox'], 1, 'no customer cus_nobody'],
    ['revoking an unknown client', ['revoke-client', '--client', 'nobody'], 1, 'no client nobody'],
  ])('refuse %s with usage on stderr', async (_, args, code, message) => {
    const customer = await t.customer();
    await expect(admin(args.map((a) => (a === 'CUSTOMER' ? customer.customer_id : a)))).rejects.toMatchObject({ code, stderr: expect.stringContaining(message) });
  });
});
