// What the tests of a migration start from: a database migrated up to the migration before
// it, holding customer `cus_a`, and rows written as that schema stored them (the sandbox
// records of `cus_a`); and the plan a query gets, on either database.
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { migrateTo } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** Midnight of a day of January 2024, the dates these rows carry. */
export const dayOf = (day: number) => `2024-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;

/** A database migrated up to `migration` (the one before the migration under test), holding customer `cus_a`. */
export async function databaseAt(migration: string): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  await migrateTo(database.handle, migration);
  await (database.handle.db as Kysely<any>).insertInto('customers').values({ id: 'cus_a', name: 'A', created_at: dayOf(1) }).execute();
  return database;
}

/** A patient of `cus_a` (Jane Doe; `token` is also its identity key). */
export function storedPatient(token: string) {
  return {
    token, customer_id: 'cus_a', environment: 'sandbox', match_key: token, first_name: 'Jane', last_name: 'Doe', first_name_norm: 'jane',
    last_name_norm: 'doe', dob: '19800131', gender: 'female', species: 'Human', created_at: dayOf(1), updated_at: dayOf(1),
  };
}

/** A fill request of `cus_a` for `patient`, made on `day` (pending, without metadata, unless `over` says otherwise). */
export function storedFillRequest(token: string, patient: string, day: number, over: { status?: string; metadata?: string | null } = {}) {
  return {
    token, customer_id: 'cus_a', environment: 'sandbox', patient_token: patient, status: over.status ?? 'pending', patient_payment_type: 'cash',
    metadata: over.metadata ?? null, shipping_method: 'usps_priority', replacement_order: null, check_in: 0, payload: JSON.stringify({ day }),
    order_token: null, created_at: dayOf(day), updated_at: dayOf(day),
  };
}

/** The indexes of `table` that migrations created (not its primary key's), by name. */
export async function createdIndexes(database: TestDatabase, table: string): Promise<string[]> {
  const db = database.handle.db as Kysely<any>;
  if (database.handle.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string; origin: string }>`select name, origin from pragma_index_list(${table})`.execute(db);
    return rows.filter((r) => r.origin === 'c').map((r) => r.name).sort();
  }
  const { rows } = await sql<{ name: string }>`
    select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
     where t.relname = ${table} and t.relnamespace = to_regnamespace(current_schema()) and not x.indisprimary`.execute(db);
  return rows.map((r) => r.name).sort();
}

/**
 * The plan of `query`: SQLite's `explain query plan`, or PostgreSQL's `explain` with
 * sequential scans off, so that an index it can use shows on tables as small as a test's.
 */
export async function queryPlan(database: TestDatabase, query: CompiledQuery): Promise<string> {
  if (database.handle.dialect === 'sqlite') {
    const { rows } = await database.handle.db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` } as CompiledQuery);
    return rows.map((r) => r.detail).join('\n');
  }
  return database.handle.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `explain ${query.sql}` } as CompiledQuery);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}
