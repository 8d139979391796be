/**
 * `pnpm bench`: throughput and latency of the running service on the embedded database
 * (or DATABASE_URL=postgres://...), next to Prism serving the same operations and a bare
 * Fastify route. Each server runs in its own process; autocannon drives them from this one.
 *
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=32 pnpm bench
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, startProcess, type Started } from './processes.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(apiRoot, '..', '..');
const bin = (name: string) => join(repoRoot, 'node_modules', '.bin', name);
const tsx = join(apiRoot, 'node_modules', '.bin', 'tsx');
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Row {
  target: string;
  operation: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function measure(target: string, operation: string, options: autocannon.Options): Promise<Row> {
  const result = await autocannon({ connections, duration, ...options });
  return {
    target,
    operation,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function patientBody(n: number): string {
  return JSON.stringify({ first_name: `Bench${n}`, last_name: 'Patient', dob: '19800131', gender: 'female', zip: '94107' });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pharmacy-bench-'));
  const databaseUrl = process.env.DATABASE_URL ?? join(dataDir, 'bench.db');
  const started: Started[] = [];
  try {
    const env = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
    const customer = JSON.parse(
      execFileSync(process.execPath, [join(apiRoot, 'bin', 'admin.mjs'), 'create-customer', '--name', 'Bench'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      }),
    ) as { sandbox_api_key: string };
    const auth = { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' };

    const apiPort = await freePort();
    const api = `http://127.0.0.1:${apiPort}`;
    started.push(await startProcess(tsx, [join(apiRoot, 'src', 'server.ts')], { ...env, PORT: String(apiPort) }, `${api}/v1/open-api/api.yml`));
    const prismPort = await freePort();
    const prism = `http://127.0.0.1:${prismPort}`;
    const bundle = join(repoRoot, 'packages', 'contract', 'openapi.yaml');
    started.push(await startProcess(bin('prism'), ['mock', bundle, '-p', String(prismPort), '-h', '127.0.0.1'], {}, `${prism}/v1/open-api/api.yml`));
    const barePort = await freePort();
    const bare = `http://127.0.0.1:${barePort}`;
    started.push(await startProcess(tsx, [join(apiRoot, 'bench', 'bare-server.ts')], { PORT: String(barePort) }, `${bare}/bare`));

    const created = await fetch(`${api}/v1/patient`, { method: 'PUT', headers: auth, body: patientBody(0) });
    const { patient_token } = (await created.json()) as { patient_token: string };

    let n = 0;
    const createPatients = (url: string): autocannon.Options => ({
      url,
      requests: [{ method: 'PUT', path: '/v1/patient', headers: auth, setupRequest: (req) => ({ ...req, body: patientBody(++n) }) }],
    });
    const rows: Row[] = [];
    rows.push(await measure('bare fastify', 'GET /bare', { url: `${bare}/bare` }));
    rows.push(await measure('service', 'GET /v1/patient/{token}', { url: `${api}/v1/patient/${patient_token}`, headers: auth }));
    rows.push(await measure('prism', 'GET /v1/patient/{token}', { url: `${prism}/v1/patient/${patient_token}`, headers: auth }));
    rows.push(await measure('service', 'PUT /v1/patient (new)', createPatients(api)));
    rows.push(await measure('prism', 'PUT /v1/patient (new)', createPatients(prism)));

    console.log(`\n${duration}s per run, ${connections} connections, database ${databaseUrl.startsWith('postgres') ? 'postgres' : 'embedded (libsql, WAL, synchronous=FULL)'}\n`);
    console.table(rows.map((r) => ({ ...r, p50: `${r.p50} ms`, p99: `${r.p99} ms` })));
    const bareGet = rows[0]!.requestsPerSecond;
    const serviceGet = rows[1]!.requestsPerSecond;
    console.log(`authenticated GET at ${((serviceGet / bareGet) * 100).toFixed(0)}% of the bare route`);
    console.log(`durable patient creates: ${rows[3]!.requestsPerSecond}/s`);
  } finally {
    for (const s of started.reverse()) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
