/**
 * `pnpm --filter @pharmacy/api bench:audit`: what the audit trail costs a read. Two service
 * processes on one embedded database, one with AUDIT_TRAIL=false, take the same fixed
 * number of authenticated GETs in alternated rounds; the bench reports the server's CPU
 * time per request (read from /proc, so steadier than throughput on a noisy machine) and
 * the throughput, for one patient read again and again (as `pnpm bench`) and for reads
 * spread over many patients (each read names a record id of its own).
 *   BENCH_REQUESTS=20000 BENCH_ROUNDS=3 BENCH_CONNECTIONS=32 BENCH_PATIENTS=2000
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMs, freePort, serviceCommand, startProcess, type Started } from './processes.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const requests = Number(process.env.BENCH_REQUESTS ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const patientCount = Number(process.env.BENCH_PATIENTS ?? 2000);

interface Measured {
  rps: number;
  cpuUsPerRequest: number;
}

async function measure(server: Started, url: string, paths: string[], auth: Record<string, string>): Promise<Measured> {
  const before = cpuMs({ roots: [server.child.pid!] });
  let next = 0;
  const result = await autocannon({
    url,
    connections,
    amount: requests,
    requests: [{ method: 'GET', headers: auth, setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! }) }],
  });
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: Math.round(result.requests.average), cpuUsPerRequest: ((cpuMs({ roots: [server.child.pid!] }) - before) * 1000) / requests };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pharmacy-bench-audit-'));
  const env = { DATABASE_URL: join(dataDir, 'bench.db'), LOG_LEVEL: 'warn', RATE_LIMIT_ENABLED: 'false' };
  const started: Started[] = [];
  try {
    const customer = JSON.parse(
      execFileSync(process.execPath, [join(apiRoot, 'bin', 'admin.mjs'), 'create-customer', '--name', 'Bench'], { env: { ...process.env, ...env }, encoding: 'utf8' }),
    ) as { sandbox_api_key: string };
    const auth = { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' };
    const servers: Record<'on' | 'off', { server: Started; url: string }> = {} as never;
    for (const mode of ['on', 'off'] as const) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const server = await startProcess(...serviceCommand(), { ...env, PORT: String(port), AUDIT_TRAIL: mode === 'on' ? 'true' : 'false' }, `${url}/v1/open-api/api.yml`);
      started.push(server);
      servers[mode] = { server, url };
    }
    const tokens: string[] = [];
    for (let n = 0; n < patientCount; n++) {
      const body = JSON.stringify({ first_name: `Audit${n}`, last_name: 'Patient', dob: '19800131', gender: 'female', zip: '94107' });
      const created = await fetch(`${servers.on.url}/v1/patient`, { method: 'PUT', headers: auth, body });
      tokens.push(((await created.json()) as { patient_token: string }).patient_token);
    }
    const workloads = { 'one patient': [`/v1/patient/${tokens[0]}`], [`${patientCount} patients`]: tokens.map((t) => `/v1/patient/${t}`) };
    const lines: string[] = [];
    for (const [workload, paths] of Object.entries(workloads)) {
      // A warm-up of each, so both have their caches filled and their code optimized.
      for (const mode of ['on', 'off'] as const) await measure(servers[mode].server, servers[mode].url, paths, auth);
      const results: Record<'on' | 'off', Measured[]> = { on: [], off: [] };
      for (let round = 0; round < rounds; round++) {
        for (const mode of ['on', 'off'] as const) results[mode].push(await measure(servers[mode].server, servers[mode].url, paths, auth));
      }
      const mean = (list: Measured[], key: keyof Measured) => list.reduce((sum, m) => sum + m[key], 0) / list.length;
      const cpuOn = mean(results.on, 'cpuUsPerRequest');
      const cpuOff = mean(results.off, 'cpuUsPerRequest');
      const rpsOn = mean(results.on, 'rps');
      const rpsOff = mean(results.off, 'rps');
      lines.push(
        `GET /v1/patient/{token}, ${workload}: server CPU ${cpuOn.toFixed(1)} µs/request audited vs ${cpuOff.toFixed(1)} off (+${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)}%); ` +
          `${Math.round(rpsOn)} vs ${Math.round(rpsOff)} req/s (${(((rpsOff - rpsOn) / rpsOff) * 100).toFixed(1)}% fewer)`,
      );
    }
    console.log(`\n${requests} requests per run, ${rounds} alternated rounds, ${connections} connections, embedded database\n`);
    for (const line of lines) console.log(line);
  } finally {
    for (const s of started.reverse()) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
