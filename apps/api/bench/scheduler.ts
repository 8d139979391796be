/**
 * `pnpm --filter @pharmacy/api bench:scheduler`: how many due auto-refills per second the
 * refill scheduler submits. Builds the services in this process (no worker loops) on a
 * fresh database: the embedded one (a temp file), or a new schema of DATABASE_URL's
 * PostgreSQL database (dropped at the end). Stores BENCH_SUBSCRIPTIONS (default 2000)
 * active subscriptions whose next refill is due, each of its own patient and prescription
 * (filled 31 days ago), then calls `scheduler.tick()` until nothing is due and reports
 * refills per second, and where the time went:
 *   - claim: the scheduler's claim of due actions (its wall time, one per tick);
 *   - checks: each refill's reads before its unit of work (subscription, prescription,
 *     the fill request's checks: patient, prescriptions, insurances);
 *   - unit of work: each refill's transaction (finish the action, fill the prescription,
 *     store the fill request, schedule the next cycle, the event), waiting for its commit.
 * A tick performs SCHEDULER_CONCURRENCY actions at once, so the per-refill times overlap.
 *
 *   BENCH_SUBSCRIPTIONS=2000 SCHEDULER_BATCH=50 BENCH_ENVIRONMENT=production pnpm bench:scheduler
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm bench:scheduler
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import type { Environment, Owner } from '../src/auth/principal.js';
import { isPostgresUrl, loadConfig } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { createServices } from '../src/services.js';
import { randomToken } from '../src/tokens.js';

const count = Number(process.env.BENCH_SUBSCRIPTIONS ?? 2000);
const environment = (process.env.BENCH_ENVIRONMENT ?? 'production') as Environment;
const DAY_MS = 86_400_000;

/** A fresh database: a temp file, or a new schema of DATABASE_URL's PostgreSQL database. */
async function freshDatabase(): Promise<{ url: string; label: string; dispose(): Promise<void> }> {
  const given = process.env.DATABASE_URL;
  if (given && isPostgresUrl(given)) {
    const schema = `bench_scheduler_${randomToken(8).toLowerCase()}`;
    const admin = new pg.Client({ connectionString: given });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    return {
      url: `${given}${given.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      label: `PostgreSQL (schema ${schema})`,
      async dispose() {
        const cleanup = new pg.Client({ connectionString: given });
        await cleanup.connect();
        await cleanup.query(`drop schema ${schema} cascade`);
        await cleanup.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-scheduler-'));
  return { url: join(dir, 'bench.db'), label: 'embedded', dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The scheduler's log: counts (and keeps the first of) the errors it reports. */
function countingLog(): { log: FastifyBaseLogger; errors: unknown[] } {
  const errors: unknown[] = [];
  const noop = () => undefined;
  const log = {
    level: 'error',
    error: (entry: unknown) => void errors.push(entry),
    fatal: (entry: unknown) => void errors.push(entry),
    warn: noop,
    info: noop,
    debug: noop,
    trace: noop,
    silent: noop,
    child: () => log,
  } as unknown as FastifyBaseLogger;
  return { log, errors };
}

/** Inserts rows in chunks (the embedded database caps a statement's parameters). */
async function insertChunked(database: DatabaseHandle, table: 'prescriptions' | 'auto_refills' | 'scheduled_actions', rows: object[], chunk = 100): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) {
    await database.db.insertInto(table).values(rows.slice(i, i + chunk) as never).execute();
  }
}

/** Accumulated wall time of a kind of call, and how many. */
class Timer {
  ms = 0;
  calls = 0;
  wrap<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      const start = performance.now();
      try {
        return await fn(...args);
      } finally {
        this.ms += performance.now() - start;
        this.calls++;
      }
    };
  }
}

async function main(): Promise<void> {
  const fresh = await freshDatabase();
  const database = openDatabase(fresh.url);
  try {
    const config = loadConfig({
      ...process.env,
      LOG_LEVEL: 'silent',
      DATABASE_URL: fresh.url,
      SECRETS_KEY: process.env.SECRETS_KEY || randomBytes(32).toString('base64'),
      TOKEN_SIGNING_KEY: process.env.TOKEN_SIGNING_KEY || randomBytes(32).toString('base64'),
      CLOCK_OFFSET_FILE: '',
    });
    await migrateToLatest(database, SecretBox.fromConfig(config));
    const { log, errors } = countingLog();
    // The services alone: no worker loop runs (no scheduler, sandbox simulator or webhook delivery of their own).
    const services = createServices(database, config, log);
    const customer = await services.customers.create('Scheduler bench');
    const owner: Owner = { customerId: customer.customer_id, environment };

    // Patients through the service (their sealed fields), prescriptions filled 31 days ago,
    // and subscriptions with their first refill's action due, stored as the API stores them.
    const setupStart = performance.now();
    const patients: string[] = [];
    for (let i = 0; i < count; i += 100) {
      const made = await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, (_, k) =>
          services.patients.create(owner, { first_name: `Bench${i + k}`, last_name: 'Refill', dob: '19800131', gender: 'female', zip: '94107' }),
        ),
      );
      patients.push(...made);
    }
    const now = Date.now();
    const filled = new Date(now - 31 * DAY_MS).toISOString();
    const at = new Date(now - 31 * DAY_MS + 60_000).toISOString();
    const prescriptions = patients.map((patient, i) => ({
      token: randomToken(),
      customer_id: customer.customer_id,
      environment,
      patient_token: patient,
      rx_number: String(8_000_000 + i),
      status: 'active',
      is_refill: 0,
      medication_name: 'Atorvastatin 20 mg tablet',
      medication_sig: 'Take 1 tablet by mouth daily',
      prescribed_quantity: 30,
      days_supply: '30',
      number_of_refills_allowed: 5,
      refills_remaining: 5,
      quantity_remaining: 150,
      date_filled_utc: filled,
      last_filled_date: filled,
      expiration_date_utc: '2099-01-01T00:00:00.000Z',
      created_at: filled,
    }));
    await insertChunked(database, 'prescriptions', prescriptions);
    // The settings a subscription made through the API stores (POST /v1/auto-refill/{token}
    // after a cash fill request): the fill request's payment, destination, survey, shipping.
    const settings = JSON.stringify({
      patient_survey: { allergies: 'None' },
      patient_payment_type: 'cash',
      address_to_name: 'Jane Doe',
      address_to_street1: '1 Market St',
      address_to_city: 'San Francisco',
      address_to_state: 'CA',
      address_to_zip: '94107',
      address_to_phone: '4155550100',
      address_to_email: 'jane@example.com',
      shipping_method: 'usps_first',
    });
    await insertChunked(
      database,
      'auto_refills',
      prescriptions.map((rx, i) => ({
        id: i + 1,
        customer_id: customer.customer_id,
        environment,
        prescription_token: rx.token,
        patient_token: rx.patient_token,
        status: 'active',
        settings,
        shipping_method: 'usps_first',
        metadata: null,
        consent: null,
        interval_days: 30,
        cycle: 0,
        last_fill_request_token: null,
        cancel_reason: null,
        created_at: at,
        updated_at: at,
        canceled_at: null,
      })),
    );
    if (database.dialect === 'postgres') {
      // The ids were given: the serial's sequence moves past them.
      await sql`select setval(pg_get_serial_sequence('auto_refills', 'id'), ${count})`.execute(database.db);
    }
    await insertChunked(
      database,
      'scheduled_actions',
      prescriptions.map((_, i) => ({
        id: randomUUID(),
        customer_id: customer.customer_id,
        environment,
        action_type: 'AUTO_REFILL',
        status: 'PENDING',
        // Due a minute ago, each a millisecond after the last (claimed in this order).
        submit_on: new Date(now - 60_000 + i).toISOString(),
        locked_until: null,
        fill_request_token: null,
        payload: null,
        reason: null,
        origin_request_id: 'bench',
        auto_refill_id: i + 1,
        cycle: 1,
        created_at: at,
        updated_at: at,
      })),
    );
    const setupMs = performance.now() - setupStart;

    // Where the time goes: the instances' methods wrapped (src/ unchanged).
    const claim = new Timer();
    const perform = new Timer();
    const checks = new Timer();
    const unit = new Timer();
    const statements = new Timer();
    const scheduler = services.scheduler as unknown as { jobs: { claim: (...args: unknown[]) => Promise<unknown[]> }; performers: Record<string, (action: unknown) => Promise<void>> };
    scheduler.jobs.claim = claim.wrap(scheduler.jobs.claim.bind(scheduler.jobs));
    scheduler.performers.AUTO_REFILL = perform.wrap(scheduler.performers.AUTO_REFILL!);
    services.fillRequests.check = checks.wrap(services.fillRequests.check.bind(services.fillRequests));
    const run = services.units.run.bind(services.units);
    // A refill's unit of work: its statements (the work), and the rest (waiting for the one writer, the commit).
    services.units.run = ((requestId: string, work: (uow: unknown) => Promise<unknown>) =>
      requestId.startsWith('sched_') ? unit.wrap(run)(requestId, statements.wrap(work) as never) : run(requestId, work as never)) as typeof services.units.run;

    let ticks = 0;
    let claimed = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (;;) {
      const n = await services.scheduler.tick();
      if (n === 0) break;
      ticks++;
      claimed += n;
    }
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;

    const submitted = await database.db.selectFrom('scheduled_actions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('cycle', '=', 1).where('status', '=', 'COMPLETE').executeTakeFirstOrThrow();
    const next = await database.db.selectFrom('scheduled_actions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('cycle', '=', 2).where('status', '=', 'PENDING').executeTakeFirstOrThrow();
    const fillRequests = await database.db.selectFrom('fill_requests').select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
    const refills = Number(submitted.n);
    const perRefill = (ms: number) => (ms / Math.max(1, refills)).toFixed(2);
    // The checks before the unit of work: what performing took beyond the unit itself.
    const beforeUnitMs = perform.ms - unit.ms;

    console.log(`\nrefill scheduler, ${fresh.label}, ${environment} subscriptions, SCHEDULER_BATCH=${config.refills.batch}, SCHEDULER_CONCURRENCY=${config.refills.concurrency}`);
    console.log(`setup: ${count} patients, prescriptions, subscriptions with their refill due, in ${(setupMs / 1000).toFixed(1)} s`);
    console.log(`submitted ${refills} of ${count} due refills in ${(elapsedMs / 1000).toFixed(2)} s: ${Math.round((refills * 1000) / elapsedMs)} refills/s`);
    console.log(`  ${ticks} ticks, ${claimed} actions claimed, ${refills} fill requests made (${fillRequests.n} stored), ${next.n} next cycles pending, ${errors.length} failures logged`);
    console.log(`  this process's CPU: ${cpuMs.toFixed(0)} ms (${((cpuMs / elapsedMs) * 100).toFixed(0)}% of the run, ${perRefill(cpuMs)} ms per refill)`);
    console.log(`  claim: ${claim.ms.toFixed(0)} ms in ${claim.calls} claims (${((claim.ms / elapsedMs) * 100).toFixed(0)}% of the run, ${(claim.ms / Math.max(1, claim.calls)).toFixed(1)} ms each)`);
    console.log(`  per refill (${config.refills.concurrency} at once, overlapping): performing ${perRefill(perform.ms)} ms = before the unit of work ${perRefill(beforeUnitMs)} ms (of which the fill request's checks ${perRefill(checks.ms)} ms) + the unit of work ${perRefill(unit.ms)} ms (its statements ${perRefill(statements.ms)} ms, waiting and committing ${perRefill(unit.ms - statements.ms)} ms)`);
    if (errors.length) console.log('  first failure:', JSON.stringify(errors[0]));
    if (refills !== count) process.exitCode = 1;
  } finally {
    await database.close();
    await fresh.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
