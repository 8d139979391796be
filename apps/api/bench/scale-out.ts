/**
 * `pnpm bench:scale`: the scale-out curve on PostgreSQL. On a fresh scratch database of the
 * server DATABASE_URL names (default postgres://postgres@127.0.0.1:5432/postgres; created,
 * then dropped), N = 1, 2 and 4 service processes (`pnpm start`, each on its own port,
 * with fulfilment-load.ts's LOAD_ENV: read cache off, refills never held) take:
 *   - GET /v1/patient/{token}, PUT /v1/patient (new patients), POST /v1/fill_request,
 * from one autocannon in this process whose BENCH_CONNECTIONS (default 32) are spread over
 * the N ports: req/s, p50, p99, non-2xx, and the ratio to N=1. The 4 processes are started
 * first and the load goes to the first N of them, N = 1, 2, 4 (then 4, 2, 1) for
 * BENCH_ROUNDS rounds (default 2), so the drift of a shared machine falls on every N. The
 * sandbox's pharmacy is held still during those rows. Contention collapse: an operation at N=4 below
 * BENCH_COLLAPSE_RATIO (default 0.8) of its N=1 throughput. `lock waits` (the mean number of
 * the database's backends waiting for a lock, sampled from pg_stat_activity) tells lock
 * contention from processes merely sharing too few cores, and `service CPU/req` (the N
 * processes' CPU time per request answered, from /proc) the cost of sharing them.
 *
 * Then the background jobs across processes: 4 fresh processes with the sandbox's simulated
 * pharmacy stepping every 50 ms and a webhook endpoint (a receiver in this process) take
 * fill requests for BENCH_DURATION seconds; once every lifecycle ended and every event was
 * delivered (at most BENCH_SETTLE_S, default 120), the database must show each step done
 * once (one order, one ORDER and one SHIPMENT per milestone per fill request), each event
 * attempted once and heard once, no deadlock (pg_stat_database, the processes' logs: 40P01)
 * and no 500. Verdict lines close the run; the exit code is 1 when one fails.
 *
 * The machine's cores are shared by the N processes, PostgreSQL and autocannon itself: on
 * fewer cores than processes the curve shows that sharing, not the service's scaling.
 *
 *   BENCH_DURATION=5 BENCH_CONNECTIONS=32 pnpm bench:scale
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchServiceEnv } from './bench-service.js';
import { createCustomer, LOAD_ENV, measure, OPERATIONS, operationLoad, prepareFulfilment, type Fulfilment, type Measured, type Operation } from './fulfilment-load.js';
import { cpuMs, freePort, serviceCommand, startProcess } from './processes.js';
import { scratchDatabase } from './scratch-database.js';

const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const settleMs = Number(process.env.BENCH_SETTLE_S ?? 120) * 1000;
const PROCESS_COUNTS = [1, 2, 4];
/** Below this share of N=1's throughput at N=4, adding processes made things worse: a contention collapse. */
const COLLAPSE_RATIO = Number(process.env.BENCH_COLLAPSE_RATIO ?? 0.8);
/** The fill request's script in the sandbox: dispensed, then three shipment milestones. */
const MILESTONES = ['IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'];

/** A service process and everything it wrote. */
interface ServiceProcess {
  url: string;
  pid: number;
  /** Stops it (SIGTERM) once; later calls wait for the same exit. */
  stop: () => Promise<void>;
  output: () => string;
}

async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = await startProcess(...serviceCommand(), { ...env, PORT: String(port) }, `${url}/v1/open-api/api.yml`);
  let output = '';
  started.child.stdout!.on('data', (chunk) => (output += chunk));
  started.child.stderr!.on('data', (chunk) => (output += chunk));
  let stopped: Promise<void> | undefined;
  return { url, pid: started.child.pid!, stop: () => (stopped ??= started.stop()), output: () => output };
}

const stopAll = (services: ServiceProcess[]) => Promise.all(services.map((s) => s.stop()));

interface Row extends Measured {
  processes: number;
  operation: Operation;
  /** req/s of each round (the spread shows the machine's noise). */
  byRound?: number[];
  /** CPU time the N service processes spent per request answered (ms, from /proc): rising with N is overhead of sharing the cores. */
  cpuPerRequest: number;
  /** Backends of the database waiting for a lock (row, table), on average over the run: contention, where CPU starvation shows none. */
  lockWaits: number;
}

/** Runs `work` while sampling, every 100 ms, how many of the database's backends wait for a lock; answers its result and their mean. */
async function sampleLockWaits<T>(database: pg.Client, work: Promise<T>): Promise<[T, number]> {
  const samples: number[] = [];
  let done = false;
  const sampling = (async () => {
    while (!done) {
      const { rows } = await database.query(`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      samples.push(Number(rows[0].n));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const result = await work.finally(() => (done = true));
  await sampling;
  return [result, samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length)];
}

/**
 * Each operation against the first N of the 4 running processes (the others idle, polling
 * for background work), N = 1, 2, 4 and back in turn, for BENCH_ROUNDS rounds (default 2)
 * so the drift of this shared machine falls on every N: req/s is the rounds' mean, p50
 * their mean, p99 their worst.
 */
async function throughputRows(fulfilment: Fulfilment, running: ServiceProcess[], database: pg.Client): Promise<Row[]> {
  const runs: Row[] = [];
  // Two seconds of every operation on every process warm them (JIT, pools) before any is measured.
  for (const operation of OPERATIONS) await measure({ ...operationLoad(operation, fulfilment, running.map((s) => s.url)), connections, duration: 2 });
  for (let round = 0; round < rounds; round++) {
    // N = 1, 2, 4, then 4, 2, 1: no N always runs first after the warm-up.
    for (const n of round % 2 === 0 ? PROCESS_COUNTS : [...PROCESS_COUNTS].reverse()) {
      const urls = running.slice(0, n).map((s) => s.url);
      for (const operation of OPERATIONS) {
        const pids = running.slice(0, n).map((s) => s.pid);
        const cpuBefore = cpuMs({ roots: pids });
        const [measured, lockWaits] = await sampleLockWaits(database, measure({ ...operationLoad(operation, fulfilment, urls), connections, duration }));
        const cpuPerRequest = (cpuMs({ roots: pids }) - cpuBefore) / Math.max(1, measured.requestsPerSecond * duration);
        runs.push({ processes: n, operation, ...measured, lockWaits, cpuPerRequest });
      }
    }
  }
  const mean = (list: Row[], pick: (r: Row) => number) => list.reduce((sum, r) => sum + pick(r), 0) / list.length;
  return PROCESS_COUNTS.flatMap((n) =>
    OPERATIONS.map((operation) => {
      const of = runs.filter((r) => r.processes === n && r.operation === operation);
      return {
        processes: n,
        operation,
        requestsPerSecond: Math.round(mean(of, (r) => r.requestsPerSecond)),
        byRound: of.map((r) => r.requestsPerSecond),
        p50: Math.round(mean(of, (r) => r.p50)),
        p90: Math.round(mean(of, (r) => r.p90)),
        p99: Math.max(...of.map((r) => r.p99)),
        max: Math.max(...of.map((r) => r.max)),
        non2xx: of.reduce((sum, r) => sum + r.non2xx, 0),
        serverErrors: of.reduce((sum, r) => sum + r.serverErrors, 0),
        errors: of.reduce((sum, r) => sum + r.errors, 0),
        lockWaits: mean(of, (r) => r.lockWaits),
        cpuPerRequest: mean(of, (r) => r.cpuPerRequest),
      };
    }),
  );
}

/** The sandbox's background jobs across 4 processes: what they did, checked from the database. */
async function backgroundJobsPhase(env: Record<string, string>, fulfilment: Fulfilment, database: pg.Client) {
  const heard = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      heard.set(id, (heard.get(id) ?? 0) + 1);
      res.end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const services: ServiceProcess[] = [];
  try {
    for (let i = 0; i < 4; i++) services.push(await startService({ ...env, SANDBOX_STEP_DELAY_MS: '50' }));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const set = await fetch(`${services[0]!.url}/v1/webhook_endpoint`, { method: 'PUT', headers: fulfilment.headers, body: JSON.stringify({ url: hook }) });
    if (!set.ok) throw new Error(`PUT /v1/webhook_endpoint answered ${set.status}: ${await set.text()}`);
    // A second of reads warms the fresh processes before the fill requests.
    await measure({ ...operationLoad('GET /v1/patient/{token}', fulfilment, services.map((s) => s.url)), connections, duration: 1 });
    const since = new Date().toISOString();
    const [load, lockWaits] = await sampleLockWaits(database, measure({ ...operationLoad('POST /v1/fill_request', fulfilment, services.map((s) => s.url)), connections, duration }));

    // Until every lifecycle of the phase ended and every event of theirs was delivered (or gave up).
    const pending = async () =>
      Number(
        (
          await database.query(
            `select (select count(*) from sandbox_steps where created_at >= $1 and state = 'scheduled')
                  + (select count(*) from events where created_at >= $1 and delivery_status in ('pending', 'retrying')) as n`,
            [since],
          )
        ).rows[0].n,
      );
    const deadline = Date.now() + settleMs;
    let left = await pending();
    while (left > 0 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 250));
      left = await pending();
    }
    const settledInMs = Date.now() - Date.parse(since);
    // A receiver hears an event before its outcome is written; let a repeat, if any, arrive too.
    await new Promise((done) => setTimeout(done, 1000));
    await stopAll(services);

    const steps = (
      await database.query<{ subject_token: string; state: string; step: number; last_error: string | null }>(
        `select subject_token, state, step, last_error from sandbox_steps where created_at >= $1 and subject = 'fill_request'`,
        [since],
      )
    ).rows;
    const fills = new Set(steps.map((s) => s.subject_token));
    const orders = (await database.query<{ fill_request_token: string; n: string }>(`select fill_request_token, count(*) as n from orders where created_at >= $1 group by fill_request_token`, [since])).rows;
    const events = (
      await database.query<{ id: string; request_id: string | null; callback_type: string; payload: string; delivery_status: string; delivery_attempts: number }>(
        `select id, request_id, callback_type, payload, delivery_status, delivery_attempts from events where created_at >= $1`,
        [since],
      )
    ).rows;
    const attempts = new Map(
      (await database.query<{ event_id: string; n: string }>(`select event_id, count(*) as n from webhook_delivery_attempts where attempted_at >= $1 group by event_id`, [since])).rows.map((r) => [r.event_id, Number(r.n)]),
    );

    const problems: string[] = [];
    const notDone = steps.filter((s) => s.state !== 'done' || s.step !== MILESTONES.length + 1);
    if (left > 0) problems.push(`${left} steps or deliveries still pending after ${settleMs / 1000} s`);
    for (const s of notDone.slice(0, 5)) problems.push(`sandbox step of fill request ${s.subject_token}: state ${s.state}, step ${s.step}${s.last_error ? `, last error: ${s.last_error}` : ''}`);
    for (const o of orders.filter((o) => Number(o.n) > 1)) problems.push(`duplicate work: fill request ${o.fill_request_token} was dispensed ${o.n} times (orders)`);
    // Each fill request's events: one ORDER, one SHIPMENT per milestone.
    const reported = new Map<string, number>();
    for (const e of events) {
      if (!e.request_id || !fills.has(e.request_id)) continue;
      const details = (JSON.parse(e.payload) as { details?: { status?: string } }).details;
      const key = `${e.request_id} ${e.callback_type}${e.callback_type === 'SHIPMENT' ? ` ${details?.status}` : ''}`;
      reported.set(key, (reported.get(key) ?? 0) + 1);
    }
    for (const [key, n] of reported) if (n > 1) problems.push(`duplicate work: the sandbox step reporting ${key} ran ${n} times (events)`);
    const expectedEvents = fills.size * (1 + MILESTONES.length);
    if (reported.size !== expectedEvents) problems.push(`${reported.size} distinct step events for ${fills.size} fill requests (expected ${expectedEvents})`);
    for (const e of events) {
      const tried = attempts.get(e.id) ?? 0;
      const times = heard.get(e.id) ?? 0;
      if (e.delivery_status !== 'delivered' || Number(e.delivery_attempts) !== 1 || tried !== 1 || times !== 1) {
        problems.push(`webhook event ${e.id} (${e.callback_type} of ${e.request_id}): ${e.delivery_status}, ${e.delivery_attempts} attempts counted, ${tried} attempt rows, heard ${times} times`);
      }
    }
    const logs = services.map((s) => s.output()).join('\n');
    return {
      load,
      lockWaits,
      fills: fills.size,
      steps: steps.length,
      events: events.length,
      delivered: events.filter((e) => e.delivery_status === 'delivered').length,
      heard: [...heard.values()].reduce((a, b) => a + b, 0),
      settledInMs,
      stepRetries: (logs.match(/sandbox step failed/g) ?? []).length,
      problems,
      logs,
    };
  } finally {
    await stopAll(services);
    receiver.close();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const scratch = await scratchDatabase('bench_scale');
  const running: ServiceProcess[] = [];
  try {
    const env = {
      ...benchServiceEnv(dataDir, scratch.url),
      // Sealed fields and webhook signing secrets need the key on PostgreSQL (config.ts).
      SECRETS_KEY: process.env.SECRETS_KEY ?? randomBytes(32).toString('base64'),
      ...LOAD_ENV,
    };
    const customer = createCustomer(env, 'Scale-out bench');
    running.push(await startService(env));
    const fulfilment = await prepareFulfilment(running[0]!.url, scratch.url, customer, 4 * connections);
    while (running.length < Math.max(...PROCESS_COUNTS)) running.push(await startService(env));
    const database = new pg.Client({ connectionString: scratch.url });
    await database.connect();
    const rows = await throughputRows(fulfilment, running, database).catch(async (error) => {
      await database.end();
      throw error;
    });
    const throughputLogs = running.map((s) => s.output()).join('\n');
    await stopAll(running);

    const phase = await backgroundJobsPhase(env, fulfilment, database).finally(() => database.end());
    const deadlocks = Number((await scratch.admin.query(`select deadlocks from pg_stat_database where datname = $1`, [scratch.name])).rows[0].deadlocks);
    const logs = `${throughputLogs}\n${phase.logs}`;
    const deadlockLines = logs.split('\n').filter((line) => /40P01|deadlock/i.test(line));
    const serverErrors = rows.reduce((sum, r) => sum + r.serverErrors, 0) + phase.load.serverErrors;

    console.log(`\nscale-out on PostgreSQL (scratch database ${scratch.name}), ${duration}s per run, ${connections} connections spread over the N processes by one autocannon in this process`);
    console.log(`${cpus().length} cores shared by the N service processes, PostgreSQL and autocannon (itself a busy process): the ratios show contention, not a clean speed-up\n`);
    const base = (operation: Operation) => rows.find((r) => r.processes === 1 && r.operation === operation)!.requestsPerSecond;
    console.table(
      rows.map((r) => ({
        N: r.processes,
        operation: r.operation,
        'req/s': r.requestsPerSecond,
        'vs N=1': `${(r.requestsPerSecond / base(r.operation)).toFixed(2)}x`,
        'req/s by round': r.byRound!.join(' / '),
        p50: `${r.p50} ms`,
        p99: `${r.p99} ms`,
        non2xx: r.non2xx,
        errors: r.errors,
        'lock waits': r.lockWaits.toFixed(1),
        'service CPU/req': `${r.cpuPerRequest.toFixed(2)} ms`,
      })),
    );
    console.log(
      `\nbackground jobs, 4 processes, sandbox step every 50 ms: ${phase.fills} fill requests (${phase.load.requestsPerSecond} req/s, p99 ${phase.load.p99} ms, ${phase.load.non2xx} non-2xx, ${phase.lockWaits.toFixed(1)} lock waits), ` +
        `${phase.steps} lifecycles, ${phase.events} events (${phase.delivered} delivered, ${phase.heard} requests heard by the receiver), settled ${(phase.settledInMs / 1000).toFixed(1)} s after the load began; ` +
        `${phase.stepRetries} sandbox steps retried after a failure`,
    );
    console.log(`deadlocks: ${deadlocks} in pg_stat_database, ${deadlockLines.length} log lines naming 40P01/deadlock; 500s answered: ${serverErrors}`);
    for (const line of deadlockLines.slice(0, 5)) console.log(`  ${line}`);
    for (const problem of phase.problems.slice(0, 20)) console.log(`  ${problem}`);
    if (phase.problems.length > 20) console.log(`  ... and ${phase.problems.length - 20} more`);

    const lockWaitsAt4 = Math.max(...rows.filter((r) => r.processes === 4).map((r) => r.lockWaits));
    console.log(`lock waits at N=4: at most ${lockWaitsAt4.toFixed(1)} backends waiting for a lock on average (near 0: what N changes is CPU, not lock contention)`);
    const collapsed = OPERATIONS.filter((op) => rows.find((r) => r.processes === 4 && r.operation === op)!.requestsPerSecond < COLLAPSE_RATIO * base(op));
    const jobFailures = [
      ...(deadlocks + deadlockLines.length > 0 ? ['deadlocks'] : []),
      ...(serverErrors > 0 ? [`${serverErrors} answers 5xx`] : []),
      ...(phase.problems.length > 0 ? [`${phase.problems.length} background job problems (above)`] : []),
    ];
    console.log(
      collapsed.length === 0
        ? `\nVERDICT contention: PASS: every operation at N=4 keeps at least ${COLLAPSE_RATIO}x of its N=1 throughput`
        : `\nVERDICT contention: FAIL: ${collapsed.join(', ')} at N=4 below ${COLLAPSE_RATIO}x of N=1 (on ${cpus().length} cores shared with PostgreSQL and autocannon)`,
    );
    console.log(
      jobFailures.length === 0
        ? `VERDICT background jobs: PASS: no deadlocks, no 5xx, every sandbox step and webhook delivery done exactly once`
        : `VERDICT background jobs: FAIL: ${jobFailures.join('; ')}`,
    );
    const failures = [...collapsed, ...jobFailures];
    if (failures.length) process.exitCode = 1;
  } finally {
    await stopAll(running);
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
