/**
 * The client as an integrator gets it: packed as it would be published, installed from the
 * tarball into a project outside the workspace (openapi-fetch, TypeScript and Node's types
 * from the npm registry), and the first example of its README compiled there by tsc against
 * the package's own declarations and run against the real service.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const clientRoot = join(apiRoot, '..', '..', 'packages', 'client');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** The first ```ts block of the client's README, as a reader would copy it. */
function firstExample(): string {
  const readme = readFileSync(join(clientRoot, 'README.md'), 'utf8');
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(readme);
  if (!block?.[1]) throw new Error('packages/client/README.md has no ```ts block');
  return block[1];
}

/** Every file under a folder, relative to it, with `/` separators. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

let scratch: string;
let installed: string;
let database: TestDatabase;
let service: ServerProcess;
let apiKey: string;

/** pnpm pack (which builds first: tsc and rollup) into the scratch folder; answers the tarball's name. */
async function packClient(): Promise<string> {
  await run(npx, ['-y', 'pnpm@10.34.8', 'pack', '--pack-destination', scratch], { cwd: clientRoot });
  const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack wrote no tarball into ${scratch}`);
  return tarball;
}

/** A new project in the scratch folder that installs the tarball, TypeScript and Node's types from the registry. */
async function installPackedClient(tarball: string): Promise<void> {
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }, null, 2));
  writeFileSync(
    join(scratch, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node'], outDir: 'out' }, files: ['example.ts'] }, null, 2),
  );
  writeFileSync(join(scratch, 'example.ts'), firstExample());
  await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`, 'typescript@5.9.3', '@types/node@20.19.43'], { cwd: scratch });
  installed = join(scratch, 'node_modules', '@pharmacy', 'client');
}

/** The service (`pnpm start`'s process) on a new embedded database, and a customer's sandbox key from the admin CLI. */
async function startService(): Promise<void> {
  database = await createTestDatabase();
  service = await startServerProcess({ DATABASE_URL: database.url });
  const { stdout } = await run(process.execPath, ['bin/admin.mjs', 'create-customer', '--name', 'Packaging Pharmacy'], {
    cwd: apiRoot,
    env: { ...process.env, DATABASE_URL: database.url },
  });
  apiKey = (JSON.parse(stdout) as { sandbox_api_key: string }).sandbox_api_key;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'pharmacy-client-'));
  // The build first: on a busy machine it would slow the service's start past its deadline.
  const tarball = await packClient();
  await Promise.all([installPackedClient(tarball), startService()]);
});

afterAll(async () => {
  await service?.stop();
  await database?.dispose();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed client, installed outside the workspace', () => {
  it('holds only the built files, and depends on openapi-fetch alone', () => {
    const files = filesUnder(installed);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('README.md');
    const stray = files.filter((file) => !(file === 'package.json' || file === 'README.md' || /^dist\/[\w.-]+\.(js|d\.ts)$/.test(file)));
    expect(stray).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(JSON.stringify(manifest)).not.toContain('workspace:');
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    // The declarations carry the contract's types themselves: nothing imports a workspace package.
    for (const file of files.filter((f) => f.startsWith('dist/'))) {
      expect(readFileSync(join(installed, file), 'utf8'), file).not.toMatch(/(from\s*|import\s*\(\s*)['"]@pharmacy\//);
    }
  });

  it('is imported by Node from the project', async () => {
    const script = "const m = await import('@pharmacy/client'); const w = await import('@pharmacy/client/webhooks'); console.log(JSON.stringify([Object.keys(m).sort(), Object.keys(w).sort()]))";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: scratch });
    const [main, webhooks] = JSON.parse(stdout) as [string[], string[]];
    expect(main).toEqual(expect.arrayContaining(['createPharmacyClient', 'createPlatformClient', 'verifyWebhook', 'ClientCredentialsTokenProvider']));
    expect(webhooks).toEqual(expect.arrayContaining(['verifyWebhook', 'signWebhook']));
  });

  it("type-checks the README's first example with tsc, and runs it: a patient is created and read back", async () => {
    await run(join(scratch, 'node_modules', '.bin', 'tsc'), ['-p', scratch], { cwd: scratch }).catch((failure: { stdout?: string }) => {
      throw new Error(`tsc refused the README's example:\n${failure.stdout ?? String(failure)}`);
    });
    const { stdout } = await run(process.execPath, [join(scratch, 'out', 'example.js')], {
      cwd: scratch,
      env: { ...process.env, PHARMACY_BASE_URL: service.url, PHARMACY_API_KEY: apiKey },
    });
    const printed = /^patient (\w+) lives in Austin$/m.exec(stdout);
    expect(printed, stdout).not.toBeNull();
    const patient = await fetch(`${service.url}/v1/patient/${printed![1]}`, { headers: { authorization: `ApiKey ${apiKey}` } });
    expect(patient.status).toBe(200);
    expect(await patient.json()).toMatchObject({ first_name: 'Jane', last_name: 'Doe', address: { city: 'Austin', state: 'TX' } });
  });
});
