// The refill scheduler across real service processes on one PostgreSQL database: two
// processes claiming the same due auto-refill cycles submit each cycle once, and a process
// killed (SIGKILL) while it submits leaves nothing half done: a new process takes over its
// leased actions once their lease (ACTION_LEASE_MS) has expired, and each cycle is still
// submitted exactly once. The service clock of every process is moved by the one
// CLOCK_OFFSET_FILE they share, so refills come due without waiting a month.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../bench/processes.js';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/database.js';
import type { ActionStatus } from '../src/scheduled-fills/scheduled-action-tables.js';
import { ACTION_LEASE_MS } from '../src/scheduled-fills/scheduler.js';
import { createServices } from '../src/services.js';
import { cashBody } from './support/fill-request-steps.js';
import { insertPrescription, jane } from './support/fixtures.js';
import type { TestApp } from './support/test-app.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { TEST_TOKEN_SIGNING_KEY } from './support/test-keys.js';
import { TEST_SECRETS_KEY } from './support/webhook-receiver.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const DAY_MS = 86_400_000;
/** A prescription's fills: the first (no refill consumed), then REFILLS refills of 30 tablets, 30 days each. */
const REFILLS = 8;
const QUANTITY = 30 * (REFILLS + 1);

/** A service process (src/server.ts) run by Node itself with tsx's loader, so its pid is the service's (SIGKILL reaches it, not a wrapper). */
interface Service {
  child: ChildProcess;
  url: string;
  /** What it wrote (LOG_LEVEL=error: the scheduler's `scheduled action failed`, crashes). */
  output(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * Starts a service process; one that exits before serving is started again (twice at most):
 * its migration check at start reads the catalogue of every schema on the server, which
 * fails ("database migration unknown failed: schema ... does not exist") while another
 * test file drops its schema (kysely's Migrator introspects every schema's tables).
 */
async function startService(env: Record<string, string>, attempts = 3): Promise<Service> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(env);
    } catch (error) {
      if (attempt >= attempts || !(error instanceof ExitedAtStart && /database migration .* does not exist/.test(error.message))) throw error;
    }
  }
}

class ExitedAtStart extends Error {}

async function startServiceOnce(env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(apiRoot, 'src', 'server.ts')], {
    cwd: apiRoot,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit');
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const signal = async (name: NodeJS.Signals) => {
    if (ended()) return;
    child.kill(name);
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      await fetch(`${url}/v1/open-api/api.yml`);
      break;
    } catch {
      if (ended()) throw new ExitedAtStart(`the service exited at start (exit code ${child.exitCode}):\n${output}`);
      if (Date.now() > deadline) {
        await signal('SIGKILL');
        throw new Error(`the service did not start:\n${output}`);
      }
      await sleep(100);
    }
  }
  return { child, url, output: () => output, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 25): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await condition()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The clock every service process reads (CLOCK_OFFSET_FILE): written whole (rename), so no process reads it half written. */
class SharedClock {
  offsetMs = 0;
  constructor(readonly path: string) {
    this.write();
  }
  advance(ms: number): void {
    this.offsetMs += ms;
    this.write();
  }
  /** Now on the services' clock. */
  now(): number {
    return Date.now() + this.offsetMs;
  }
  private write(): void {
    writeFileSync(`${this.path}.tmp`, String(this.offsetMs));
    renameSync(`${this.path}.tmp`, this.path);
  }
}

/** One database, its customer, the clock file, and the env of its service processes. */
interface Setup {
  database: TestDatabase;
  db: Db;
  customerId: string;
  apiKey: string;
  clock: SharedClock;
  env: Record<string, string>;
  dispose(): Promise<void>;
}

async function setUp(): Promise<Setup> {
  const database = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'scheduler-processes-'));
  const keys = { SECRETS_KEY: TEST_SECRETS_KEY, TOKEN_SIGNING_KEY: TEST_TOKEN_SIGNING_KEY };
  // The customer made in process (its services are built on the same database, no workers).
  const services = createServices(database.handle, loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url, ...keys }));
  const customer = await services.customers.create('Scheduler processes');
  const clock = new SharedClock(join(dir, 'clock-offset'));
  const env = {
    DATABASE_URL: database.url,
    ...keys,
    CLOCK_OFFSET_FILE: clock.path,
    // Small polls and batches, so processes sharing the due actions interleave their claims.
    SCHEDULER_POLL_MS: '20',
    SCHEDULER_BATCH: '5',
    RATE_LIMIT_ENABLED: 'false',
    // The sandbox's simulated pharmacy carries the refills on (dispense, ship) a day later on the service clock.
    SANDBOX_STEP_DELAY_MS: '86400000',
  };
  return {
    database,
    db: database.handle.db,
    customerId: customer.customer_id,
    apiKey: customer.sandbox_api_key,
    clock,
    env,
    async dispose() {
      await database.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A JSON call to a service with the customer's sandbox key; answers the body, failing on any status but `status`. */
async function call(setup: Setup, service: Service, method: string, path: string, body?: unknown, status = [200, 201]): Promise<any> {
  const response = await fetch(service.url + path, {
    method,
    headers: { authorization: `ApiKey ${setup.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!status.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * `count` subscriptions through the API (spread over `services`): patients of 10
 * prescriptions each, each prescription filled once (a cash fill request), then subscribed
 * (no body: the refills take the fill request's payment and destination). The first
 * refill of each is due 30 days after its fill. Answers the prescription tokens.
 */
async function subscribe(setup: Setup, services: Service[], count: number): Promise<string[]> {
  const tokens: string[] = [];
  const viaDatabase = { database: setup.database } as unknown as TestApp; // insertPrescription only writes through the database
  for (let start = 0; start < count; start += 10) {
    const service = services[(start / 10) % services.length]!;
    const patient = (await call(setup, service, 'PUT', '/v1/patient', { ...jane, first_name: `Sched${tokens.length}x${Math.random().toString(36).slice(2, 8)}` })).patient_token as string;
    const batch: string[] = [];
    for (let n = start; n < Math.min(count, start + 10); n++) {
      const rx = await insertPrescription(viaDatabase, { customer_id: setup.customerId, patient_token: patient }, {
        number_of_refills_allowed: REFILLS,
        refills_remaining: REFILLS,
        quantity_remaining: QUANTITY,
        prescribed_quantity: 30,
        days_supply: '30',
      });
      batch.push(rx.token);
    }
    await Promise.all(
      batch.map(async (token, i) => {
        const via = services[i % services.length]!;
        await call(setup, via, 'POST', '/v1/fill_request', cashBody(patient, [token]));
        await call(setup, via, 'POST', `/v1/auto-refill/${token}`);
      }),
    );
    tokens.push(...batch);
  }
  return tokens;
}

/** How many scheduled actions are in `status`, due by `dueBy` (ISO) when given. */
async function countActions(db: Db, status: ActionStatus, dueBy?: string): Promise<number> {
  let query = db.selectFrom('scheduled_actions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('action_type', '=', 'AUTO_REFILL').where('status', '=', status);
  if (dueBy) query = query.where('submit_on', '<=', dueBy);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/**
 * Checks every subscription of `prescriptions` has had exactly `cycles(token)` refills, each
 * submitted once: its actions are cycles 1..n COMPLETE, each naming a fill request of its
 * own, and cycle n+1 PENDING (one action per cycle, no other); the prescription has n + 1
 * fill requests (the first one and one per cycle) and refills_remaining decremented n times.
 * Answers the problems found (empty when none), so a failure lists them all.
 */
async function problems(db: Db, prescriptions: string[], cycles: (token: string) => number): Promise<string[]> {
  const found: string[] = [];
  const subs = await db.selectFrom('auto_refills').selectAll().where('prescription_token', 'in', prescriptions).execute();
  const actions = await db.selectFrom('scheduled_actions').selectAll().where('auto_refill_id', 'in', subs.map((s) => s.id)).execute();
  const fills = await db.selectFrom('fill_request_medications').selectAll().where('prescription_token', 'in', prescriptions).execute();
  const rxs = await db.selectFrom('prescriptions').select(['token', 'refills_remaining', 'quantity_remaining']).where('token', 'in', prescriptions).execute();
  const requests = new Set((await db.selectFrom('fill_requests').select('token').where('token', 'in', fills.map((f) => f.fill_request_token)).execute()).map((r) => r.token));
  for (const token of prescriptions) {
    const n = cycles(token);
    const mine = subs.filter((s) => s.prescription_token === token);
    const sub = mine[0];
    if (mine.length !== 1 || !sub) {
      found.push(`${token}: ${mine.length} subscriptions`);
      continue;
    }
    if (sub.status !== 'active' || Number(sub.cycle) !== n) found.push(`${token}: subscription ${sub.status} at cycle ${sub.cycle}, expected active at ${n}`);
    const own = actions.filter((a) => Number(a.auto_refill_id) === Number(sub.id));
    const byCycle = (c: number) => own.filter((a) => Number(a.cycle) === c);
    for (let c = 1; c <= n; c++) {
      const done = byCycle(c);
      if (done.length !== 1 || done[0]!.status !== 'COMPLETE' || !done[0]!.fill_request_token) {
        found.push(`${token}: cycle ${c} is ${JSON.stringify(done.map((a) => [a.status, a.fill_request_token]))}, expected one COMPLETE with its fill request`);
      }
    }
    const next = byCycle(n + 1);
    if (next.length !== 1 || next[0]!.status !== 'PENDING') found.push(`${token}: cycle ${n + 1} is ${JSON.stringify(next.map((a) => a.status))}, expected one PENDING`);
    if (own.length !== n + 1) found.push(`${token}: ${own.length} actions, expected ${n + 1}`);
    const own_fills = fills.filter((f) => f.prescription_token === token);
    const fillTokens = new Set(own_fills.map((f) => f.fill_request_token));
    if (own_fills.length !== n + 1 || fillTokens.size !== n + 1) found.push(`${token}: ${own_fills.length} fills in ${fillTokens.size} fill requests, expected ${n + 1}`);
    for (const t of fillTokens) if (!requests.has(t)) found.push(`${token}: fill request ${t} missing`);
    for (const a of own) if (a.status === 'COMPLETE' && !fillTokens.has(a.fill_request_token!)) found.push(`${token}: cycle ${a.cycle} names ${a.fill_request_token}, not a fill of this prescription`);
    const numbers = own_fills.map((f) => Number(f.fill_number)).sort((a, b) => a - b);
    if (JSON.stringify(numbers) !== JSON.stringify(Array.from({ length: n + 1 }, (_, i) => i))) found.push(`${token}: fill numbers ${numbers}, expected 0..${n}`);
    const rx = rxs.find((r) => r.token === token)!;
    if (Number(rx.refills_remaining) !== REFILLS - n || Number(rx.quantity_remaining) !== QUANTITY - 30 * (n + 1)) {
      found.push(`${token}: refills_remaining ${rx.refills_remaining}, quantity_remaining ${rx.quantity_remaining}; expected ${REFILLS - n}, ${QUANTITY - 30 * (n + 1)}`);
    }
  }
  return found;
}

/** The scheduler's failures a service logged (`scheduled action failed`, `worker tick failed`), and anything it printed outside its JSON log. */
function failures(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        const msg = JSON.parse(line).msg;
        return msg === 'scheduled action failed' || msg === 'worker tick failed';
      } catch {
        return true;
      }
    });
}

describe.runIf(process.env.TEST_DATABASE === 'postgres')('the refill scheduler in service processes on one PostgreSQL database', () => {
  let setup: Setup;
  const services: Service[] = [];
  beforeAll(async () => {
    setup = await setUp();
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await setup?.dispose();
  });

  it('two processes claiming the same due cycles submit each cycle exactly once, round after round', async () => {
    services.push(...(await Promise.all([startService(setup.env), startService(setup.env)])));
    const N = 40;
    const ROUNDS = 3;
    const prescriptions = await subscribe(setup, services, N);
    expect(await countActions(setup.db, 'PENDING')).toBe(N);
    for (let round = 1; round <= ROUNDS; round++) {
      // Every subscription's cycle `round` comes due in both processes at once (each reads the file within 100 ms).
      setup.clock.advance(31 * DAY_MS);
      await waitFor(`cycle ${round} of ${N} subscriptions`, async () => (await countActions(setup.db, 'COMPLETE')) >= N * round && (await countActions(setup.db, 'PENDING', new Date(setup.clock.now()).toISOString())) === 0);
      // A second submission of a cycle, would there be one, has its moment to land.
      await sleep(300);
      expect(await problems(setup.db, prescriptions, () => round), `round ${round}`).toEqual([]);
      expect(await countActions(setup.db, 'COMPLETE')).toBe(N * round);
      expect(await countActions(setup.db, 'PENDING')).toBe(N);
    }
    expect(services.every((s) => s.child.exitCode === null)).toBe(true);
    expect(services.flatMap((s) => failures(s.output()))).toEqual([]);
    await Promise.all(services.splice(0).map((s) => s.stop()));
  }, 90_000);
});

describe.runIf(process.env.TEST_DATABASE === 'postgres')('a service process killed (SIGKILL) while it submits due refills', () => {
  let setup: Setup;
  let service: Service | undefined;
  beforeAll(async () => {
    setup = await setUp();
  });
  afterAll(async () => {
    await service?.stop();
    await setup?.dispose();
  });

  it('leaves each cycle submitted exactly once: a new process takes the leased actions over after the lease', async () => {
    const BATCH = 40;
    const REPEATS = 3;
    /** Each prescription's batch (the repetition it was subscribed in). */
    const batchOf = new Map<string, number>();
    /** At each kill: refills due, already submitted, and claimed by the killed process but not submitted (leased). */
    const kills: { due: number; submitted: number; leased: number }[] = [];
    // One refill at a time: a claim of SCHEDULER_BATCH (5) refills performed together ended
    // within a millisecond or two of its first submission, so on a fast machine the kill,
    // watched for in that window, landed after the whole claim (three kills, none leased);
    // one at a time, the claim is held across four more submissions.
    const env = { ...setup.env, SCHEDULER_CONCURRENCY: '1' };
    service = await startService(env);
    const outputs: string[] = [];
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      // A new batch of subscriptions; those of earlier repetitions come due again too.
      for (const token of await subscribe(setup, [service], BATCH)) batchOf.set(token, repeat);
      const completeBefore = await countActions(setup.db, 'COMPLETE');
      setup.clock.advance(31 * DAY_MS);
      const due = await countActions(setup.db, 'PENDING', new Date(setup.clock.now()).toISOString());
      expect(due).toBe(batchOf.size);
      // Killed mid-submission: as soon as it holds claimed refills it has not submitted yet (a
      // lease), once it has submitted at least one. Watching for the lease rather than killing
      // after a set moment keeps the kill inside a claim on a busy machine too.
      const leasedNow = async () =>
        Number(
          (
            await setup.db
              .selectFrom('scheduled_actions')
              .select((eb) => eb.fn.countAll<string | number>().as('n'))
              .where('status', '=', 'PENDING')
              .where('locked_until', '>', new Date(setup.clock.now()).toISOString())
              .executeTakeFirstOrThrow()
          ).n,
        );
      const dueNow = async () => countActions(setup.db, 'PENDING', new Date(setup.clock.now()).toISOString());
      await waitFor('a refill submitted and others claimed', async () => ((await countActions(setup.db, 'COMPLETE')) > completeBefore && (await leasedNow()) > 0) || (await dueNow()) === 0, 20_000, 1);
      await service.kill();
      expect(service.child.signalCode).toBe('SIGKILL');
      outputs.push(service.output());
      kills.push({ due, submitted: (await countActions(setup.db, 'COMPLETE')) - completeBefore, leased: await leasedNow() });
      // A new process on the same database, its clock past the dead one's leases.
      service = await startService(env);
      setup.clock.advance(ACTION_LEASE_MS + 60_000);
      await waitFor(`the ${due} due refills of repetition ${repeat}`, async () => (await countActions(setup.db, 'COMPLETE')) - completeBefore >= due && (await countActions(setup.db, 'PENDING', new Date(setup.clock.now()).toISOString())) === 0);
      await sleep(300);
      // Batch b has had one refill per repetition since it was subscribed.
      expect(await problems(setup.db, [...batchOf.keys()], (token) => repeat - batchOf.get(token)! + 1), `repetition ${repeat}, ${JSON.stringify(kills.at(-1))}`).toEqual([]);
      expect(await countActions(setup.db, 'COMPLETE')).toBe(completeBefore + due);
    }
    await service.stop();
    outputs.push(service.output());
    service = undefined;
    // The kills came while refills were still due, some claimed by the killed process (otherwise they tested nothing).
    expect(kills.filter((k) => k.submitted < k.due).length, JSON.stringify(kills)).toBeGreaterThan(0);
    expect(kills.filter((k) => k.leased > 0).length, JSON.stringify(kills)).toBeGreaterThan(0);
    expect(outputs.flatMap(failures)).toEqual([]);
  }, 90_000);
});
