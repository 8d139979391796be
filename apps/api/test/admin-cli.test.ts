import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expect(Object.keys(created).sort()).toEqual(['customer_id', 'production_api_key', 'sandbox_api_key']);

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

  it('refuses a missing name with usage on stderr', async () => {
    await expect(admin(['create-customer'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--name is required') });
  });
});
