import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { JobClaims, type JobTable } from '../src/db/job-claims.js';
import { transactorFor } from '../src/db/transactor.js';
import { randomToken } from '../src/tokens.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

/**
 * A worker's poll of its job table starts when the service does, often on an empty table.
 * On PostgreSQL a kept (named) statement is planned once for any values from its sixth run:
 * on an empty table a sequential scan, kept while the table grows. The polls are planned at
 * each call instead (postgres-statements.ts: plannedEachTime), and still claim what is due.
 */
const STEPS: JobTable<'sandbox_steps'> = { table: 'sandbox_steps', dueAt: 'run_at', state: { column: 'state', values: ['scheduled'] } };
const postgres = process.env.TEST_DATABASE === 'postgres';

let database: TestDatabase;
/** The database again through one connection (PostgreSQL): what it keeps prepared is that connection's. */
let single: DatabaseHandle;
const customerId = `cus_${randomToken(12)}`;

beforeEach(async () => {
  database = await createTestDatabase();
  single = postgres ? openDatabase(database.url, { poolSize: 1 }) : database.handle;
  await (database.handle.db as Kysely<any>).insertInto('customers').values({ id: customerId, name: 'Claims', created_at: new Date().toISOString() }).execute();
});
afterEach(async () => {
  if (single !== database.handle) await single.close();
  await database.dispose();
});

function steps(count: number, state: string, runAt: string) {
  const at = new Date().toISOString();
  return Array.from({ length: count }, () => ({
    id: `sbx_${randomToken(16)}`,
    customer_id: customerId,
    environment: 'sandbox',
    subject: 'fill_request',
    subject_token: randomToken(16),
    step: 0,
    run_at: runAt,
    state,
    created_at: at,
    updated_at: at,
  }));
}

async function insertSteps(rows: ReturnType<typeof steps>): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await (database.handle.db as Kysely<any>).insertInto('sandbox_steps').values(rows.slice(i, i + 500)).execute();
}

describe('a job table polled from empty', () => {
  it('claims what falls due after it grew', async () => {
    const jobs = new JobClaims(single.db, transactorFor(single), single.dialect);
    // More polls than PostgreSQL plans for their values before it keeps one plan for all.
    for (let i = 0; i < 8; i++) expect(await jobs.claim(STEPS, 10, 60_000)).toEqual([]);
    await insertSteps(steps(3000, 'done', new Date(Date.now() - 60_000).toISOString()));
    await insertSteps(steps(3000, 'scheduled', new Date(Date.now() + 3_600_000).toISOString()));
    const due = steps(2, 'scheduled', new Date(Date.now() - 1000).toISOString());
    await insertSteps(due);
    const claimed = await jobs.claim(STEPS, 10, 60_000);
    expect(claimed.map((row) => row.id).sort()).toEqual(due.map((row) => row.id).sort());
    expect(claimed.every((row) => row.locked_until !== null)).toBe(true);
    // Claimed: the next poll finds nothing more.
    expect(await jobs.claim(STEPS, 10, 60_000)).toEqual([]);
  });

  it.runIf(postgres)('is planned at each poll on PostgreSQL, not kept as a named statement', async () => {
    const jobs = new JobClaims(single.db, transactorFor(single), single.dialect);
    for (let i = 0; i < 8; i++) await jobs.claim(STEPS, 10, 60_000);
    await insertSteps(steps(1, 'scheduled', new Date(Date.now() - 1000).toISOString()));
    expect(await jobs.claim(STEPS, 10, 60_000)).toHaveLength(1);
    // The other statements of that connection are kept (the mechanism is on): a read through Kysely.
    for (let i = 0; i < 2; i++) await (single.db as Kysely<any>).selectFrom('customers').select('id').where('id', '=', customerId).execute();
    const kept = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(single.db);
    const texts = kept.rows.map((row) => row.statement);
    expect(texts.some((text) => text.includes('from "customers"'))).toBe(true);
    expect(texts.filter((text) => text.includes('"sandbox_steps"'))).toEqual([]);
  });
});
