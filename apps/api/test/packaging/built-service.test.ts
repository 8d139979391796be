/**
 * The service as `pnpm start` runs it: bundled by scripts/build.mjs (its npm packages inside
 * dist/server.js but for the SQLite driver) and started with the start script's Node flags.
 * The other tests run the TypeScript source; this one answers for the bundle: that it loads,
 * that the bundled packages work in it (Fastify, Ajv, fast-json-stringify, jose, Kysely, the
 * rate limits) and that what it still loads at run time is found.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, serviceCommand, startProcess, type Started } from '../../bench/processes.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Customer {
  sandbox_api_key: string;
  sandbox_client_id: string;
  sandbox_client_secret: string;
  audience: string;
}

let database: TestDatabase;
let service: Started;
let url: string;
let customer: Customer;
let bundle: string;

beforeAll(async () => {
  database = await createTestDatabase();
  // Builds dist/ first when it is stale, as `pnpm start` does.
  const [command, args] = serviceCommand();
  bundle = args.find((arg) => arg.endsWith('server.js'))!;
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  service = await startProcess(command, args, { PORT: String(port), DATABASE_URL: database.url, LOG_LEVEL: 'silent' }, `${url}/health/live`);
  const { stdout } = await run(process.execPath, ['bin/admin.mjs', 'create-customer', '--name', 'Bundle Pharmacy'], {
    cwd: apiRoot,
    env: { ...process.env, DATABASE_URL: database.url },
  });
  customer = JSON.parse(stdout) as Customer;
});

afterAll(async () => {
  await service?.stop();
  await database?.dispose();
});

describe('the built service (pnpm start)', () => {
  it('imports only Node modules and the SQLite driver', () => {
    const imported = [...readFileSync(bundle, 'utf8').matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((match) => match[1]!);
    const packages = new Set(imported.filter((name) => !name.startsWith('node:') && !builtinModules.includes(name)));
    expect([...packages]).toEqual(['@photostructure/sqlite']);
  });

  it('creates a patient and reads it back, refuses a bad body and a missing key in the seed error shape', async () => {
    const auth = { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/v1/patient`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ first_name: 'Ada', last_name: 'Bundle', dob: '19800131', gender: 'female', zip: '94107' }),
    });
    expect(created.status).toBe(201);
    const { patient_token } = (await created.json()) as { patient_token: string };
    const read = await fetch(`${url}/v1/patient/${patient_token}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ patient_token, first_name: 'Ada', last_name: 'Bundle' });

    const refused = await fetch(`${url}/v1/patient`, { method: 'PUT', headers: auth, body: JSON.stringify({ first_name: 'Ada' }) });
    expect(refused.status).toBe(400);
    const refusal = (await refused.json()) as { statusCode: number; error: string; validation_errors: { key: string }[] };
    expect(refusal).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(refusal.validation_errors.map((e) => e.key)).toContain('last_name');

    const anonymous = await fetch(`${url}/v1/patient/${patient_token}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ statusCode: 401 });
  });

  it('exchanges client credentials for a bearer token and accepts it', async () => {
    const exchanged = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: customer.sandbox_client_id, client_secret: customer.sandbox_client_secret, audience: customer.audience }),
    });
    expect(exchanged.status).toBe(200);
    const { access_token } = (await exchanged.json()) as { access_token: string };
    const kits = await fetch(`${url}/diagnostics/v0/kits`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(kits.status).toBe(200);
  });

  it('serves the interface document and the docs page with Redoc read from node_modules', async () => {
    const document = await fetch(`${url}/v1/open-api/api.yml`);
    expect(document.status).toBe(200);
    expect(await document.text()).toMatch(/^openapi: 3\.1/m);
    const redoc = await fetch(`${url}/docs/redoc.standalone.js`);
    expect(redoc.status).toBe(200);
    expect((await redoc.text()).length).toBeGreaterThan(100_000);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const exited = new Promise<number | null>((done) => service.child.once('exit', (code) => done(code)));
    service.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
