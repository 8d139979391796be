/**
 * `pnpm bench:compare`: whether a change makes the service faster, on a machine whose speed
 * drifts by more than the change. Two service processes, A and B, each on a database of its
 * own, take one operation in alternated slices (A then B, then B then A, ...), so every
 * drift of the machine falls on both; the answer is B's throughput relative to A's, round by
 * round, with an interval (paired-ratios.ts), and each one's CPU a request.
 *
 *   pnpm bench:compare -- --b /tmp/candidate.js             two builds (A: `pnpm start`'s)
 *   pnpm bench:compare -- --b-env PG_SYNCHRONOUS_COMMIT=off  one build, two settings
 *   pnpm bench:compare                                       A against itself: this
 *                                                            machine's noise, to read the rest by
 *
 * Options: `--operation read|create|fill` (default fill: POST /v1/fill_request; read is
 * the uncached GET /v1/patient/{token}, create a new patient's PUT /v1/patient), `--a` and
 * `--b` (a built service file, `pnpm build`'s dist/server.js copied aside, run from a copy
 * in dist/; default dist/server.js as `pnpm start` runs it, building it first when stale; both
 * with `pnpm start`'s Node flags), `--a-env` and `--b-env KEY=VALUE` (repeatable). Both processes run with the benches'
 * settings (bench-service.ts) and the read cache off (fulfilment-load.ts). Environment:
 * BENCH_ROUNDS (default 10), BENCH_SLICE (seconds, default 2), BENCH_WARMUP (seconds per
 * process before the first round, default 3), BENCH_CONNECTIONS (default 32), DATABASE_URL
 * (postgres://...: two scratch databases on that server, created and dropped; otherwise two
 * embedded database files in a temporary folder).
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isPostgresUrl } from '../src/config.js';
import { benchServiceEnv } from './bench-service.js';
import { createCustomer, LOAD_ENV, measure, operationLoad, prepareFulfilment, type Fulfilment, type Operation } from './fulfilment-load.js';
import { pairedRatios } from './paired-ratios.js';
import { cpuMs, freePort, serviceCommand, startProcess, type Started } from './processes.js';
import { scratchDatabase, type ScratchDatabase } from './scratch-database.js';

const OPERATION_NAMES: Record<string, Operation> = { read: 'GET /v1/patient/{token}', create: 'PUT /v1/patient (new)', fill: 'POST /v1/fill_request' };

// `pnpm bench:compare -- --b ...` hands the script its `--` too.
const argv = process.argv.slice(2);
const { values: args } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    operation: { type: 'string', default: 'fill' },
    a: { type: 'string' },
    b: { type: 'string' },
    'a-env': { type: 'string', multiple: true, default: [] },
    'b-env': { type: 'string', multiple: true, default: [] },
  },
});
const operation = OPERATION_NAMES[args.operation!];
if (!operation) throw new Error(`--operation is one of ${Object.keys(OPERATION_NAMES).join(', ')}, not ${args.operation}`);
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const slice = Number(process.env.BENCH_SLICE ?? 2);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const postgres = isPostgresUrl(process.env.DATABASE_URL ?? '');

interface Variant {
  label: 'A' | 'B';
  file: string | undefined;
  env: Record<string, string>;
}

interface Running extends Variant {
  started: Started;
  fulfilment: Fulfilment;
  url: string;
  rates: number[];
  requests: number;
  cpuMs: number;
  drop: () => Promise<void>;
}

function envOf(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`an env setting is KEY=VALUE, not ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/**
 * A variant's built file, copied beside `pnpm start`'s (a bundle finds its packages and the
 * service's data files from where it lies); removed when the run ends. The copy is made
 * after the build step, which empties dist/ when it rebuilds: keep files to compare elsewhere.
 */
function placed(variant: Variant): string {
  const source = resolve(variant.file!);
  if (!existsSync(source)) throw new Error(`${variant.label}'s file ${source} is not there${source.startsWith(distDir) ? ' (a stale build empties dist/: keep the files to compare outside it)' : ''}`);
  const copy = join(distDir, `compare-${variant.label.toLowerCase()}-${process.pid}.js`);
  copyFileSync(source, copy);
  copies.push(copy);
  return copy;
}

async function start(variant: Variant, command: [string, string[]]): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-compare-${variant.label}-`));
  let scratch: ScratchDatabase | undefined;
  if (postgres) scratch = await scratchDatabase(`bench_compare_${variant.label.toLowerCase()}`);
  const databaseUrl = scratch?.url ?? join(dataDir, 'bench.db');
  const env = { ...benchServiceEnv(dataDir, databaseUrl), ...LOAD_ENV, ...variant.env };
  const customer = createCustomer(env, `bench compare ${variant.label}`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const [node, nodeArgs] = command;
  const fileArgs = variant.file ? [...nodeArgs.slice(0, -1), placed(variant)] : nodeArgs;
  const started = await startProcess(node, fileArgs, { ...env, PORT: String(port) }, `${url}/v1/open-api/api.yml`);
  const fulfilment = await prepareFulfilment(url, databaseUrl, customer, 64);
  return {
    ...variant,
    started,
    fulfilment,
    url,
    rates: [],
    requests: 0,
    cpuMs: 0,
    async drop() {
      await started.stop();
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function slice1(running: Running, seconds: number): Promise<void> {
  const before = cpuMs({ roots: [running.started.child.pid!] });
  const measured = await measure({ ...operationLoad(operation!, running.fulfilment, running.url), connections, duration: seconds });
  running.cpuMs += cpuMs({ roots: [running.started.child.pid!] }) - before;
  running.requests += measured.requestsPerSecond * seconds;
  running.rates.push(measured.requestsPerSecond);
  if (measured.non2xx || measured.errors) throw new Error(`${running.label} answered ${measured.non2xx} non-2xx and had ${measured.errors} errors: compare a service that works`);
}

const variants: Variant[] = [
  { label: 'A', file: args.a, env: envOf(args['a-env']!) },
  { label: 'B', file: args.b, env: envOf(args['b-env']!) },
];
const command = serviceCommand();
const distDir = dirname(command[1].at(-1)!);
const copies: string[] = [];
const running: Running[] = [];
try {
  for (const variant of variants) running.push(await start(variant, command));
  const [a, b] = running as [Running, Running];
  for (const r of running) await measure({ ...operationLoad(operation, r.fulfilment, r.url), connections, duration: warmup });
  let postgresMs = 0;
  const postgresBefore = postgres ? cpuMs({ name: 'postgres' }) : 0;
  for (let round = 0; round < rounds; round++) {
    for (const r of round % 2 === 0 ? [a, b] : [b, a]) await slice1(r, slice);
  }
  if (postgres) postgresMs = cpuMs({ name: 'postgres' }) - postgresBefore;

  const describe = (r: Running) => `${r.label}: ${r.file ?? 'dist/server.js'}${Object.keys(r.env).length ? ` ${Object.entries(r.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`;
  console.log(`\n${operation}, ${rounds} rounds of ${slice} s each (A and B alternated), ${connections} connections, ${postgres ? 'PostgreSQL' : 'embedded database'}`);
  for (const r of running) {
    const sorted = [...r.rates].sort((x, y) => x - y);
    console.log(`${describe(r)}\n   req/s by round ${r.rates.join(' ')}; median ${sorted[sorted.length >> 1]}; service CPU ${Math.round((r.cpuMs * 1000) / Math.max(1, r.requests))} µs a request`);
  }
  if (postgres) console.log(`PostgreSQL's CPU (all its processes, both databases): ${Math.round((postgresMs * 1000) / Math.max(1, a.requests + b.requests))} µs a request`);
  const paired = pairedRatios(a.rates, b.rates);
  const share = (x: number) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)}%`;
  console.log(`B against A: ${share(paired.ratio)} (90% interval ${share(paired.low)} to ${share(paired.high)}; by round ${paired.ratios.map((x) => x.toFixed(3)).join(' ')})`);
  console.log(
    paired.low <= 1 && paired.high >= 1
      ? 'The interval holds 0%: this run cannot tell A and B apart.'
      : `B is ${paired.ratio > 1 ? 'faster' : 'slower'} in this run. Compare with A against itself (no --b, no --b-env) on this machine before trusting a few percent.`,
  );
} finally {
  for (const r of running) await r.drop();
  for (const copy of copies) rmSync(copy, { force: true });
}
