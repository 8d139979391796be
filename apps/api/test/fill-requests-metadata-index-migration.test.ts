// Migration 026 on a database written before it: `fill_requests_metadata` becomes a partial
// index of the requests that carry metadata; every request stays, and the search by
// metadata finds the same requests through it.
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const at = (day: number) => `2024-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;

function request(token: string, day: number, metadata: string | null) {
  return {
    token, customer_id: 'cus_a', environment: 'sandbox', patient_token: 'pat_1', status: 'pending', patient_payment_type: 'cash',
    metadata, shipping_method: 'usps_priority', replacement_order: null, check_in: 0, payload: '{}', order_token: null, created_at: at(day), updated_at: at(day),
  };
}

/** The search of `GET /v1/fill_request?metadata=`, as the repository sends it. */
function byMetadata(db: Kysely<any>, metadata: string) {
  return db.selectFrom('fill_requests').select('token').where('customer_id', '=', 'cus_a').where('environment', '=', 'sandbox').where('metadata', '=', metadata).orderBy('created_at').orderBy('token');
}

/** Whether `fill_requests_metadata` is a partial index. */
async function metadataIndex(database: TestDatabase): Promise<{ partial: boolean }> {
  const db = database.handle.db as Kysely<any>;
  if (database.handle.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string; partial: number }>`pragma index_list('fill_requests')`.execute(db);
    return { partial: rows.find((r) => r.name === 'fill_requests_metadata')?.partial === 1 };
  }
  const { rows } = await sql<{ partial: boolean }>`
    select x.indpred is not null as partial from pg_index x join pg_class i on i.oid = x.indexrelid
     where i.relname = 'fill_requests_metadata' and i.relnamespace = to_regnamespace(current_schema())`.execute(db);
  return { partial: rows[0]!.partial };
}

/** The plan of the search: on PostgreSQL with sequential scans off, so a usable index shows on a table this small. */
async function planOf(database: TestDatabase, metadata: string): Promise<string> {
  const query = byMetadata(database.handle.db as Kysely<any>, metadata).compile();
  if (database.handle.dialect === 'sqlite') {
    const { rows } = await database.handle.db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` } as typeof query);
    return rows.map((r) => r.detail).join('\n');
  }
  return database.handle.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `explain ${query.sql}` } as typeof query);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
  await migrateTo(database.handle, '025-fills-found-by-patient');
  const db = database.handle.db as Kysely<any>;
  await db.insertInto('customers').values({ id: 'cus_a', name: 'A', created_at: at(1) }).execute();
  await db.insertInto('patients').values({
    token: 'pat_1', customer_id: 'cus_a', environment: 'sandbox', match_key: 'k', first_name: 'Jane', last_name: 'Doe', first_name_norm: 'jane',
    last_name_norm: 'doe', dob: '19800131', gender: 'female', species: 'Human', created_at: at(1), updated_at: at(1),
  }).execute();
  await db.insertInto('fill_requests').values([request('fr_1', 1, 'even'), request('fr_2', 2, null), request('fr_3', 3, 'odd'), request('fr_4', 4, 'even'), request('fr_5', 5, null)]).execute();
});
afterEach(async () => database?.dispose());

describe('migration 026 (a partial index of fill requests by metadata)', () => {
  it('keeps only the requests with metadata in the index, and every request in the table', async () => {
    expect(await metadataIndex(database)).toEqual({ partial: false });
    await migrateToLatest(database.handle);
    expect(await metadataIndex(database)).toEqual({ partial: true });
    const { count } = await database.handle.db.selectFrom('fill_requests').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    expect(Number(count)).toBe(5);
  });

  it('finds the requests of one metadata through the index', async () => {
    await migrateToLatest(database.handle);
    const db = database.handle.db as Kysely<any>;
    expect((await byMetadata(db, 'even').execute()).map((r) => r.token)).toEqual(['fr_1', 'fr_4']);
    expect((await byMetadata(db, 'odd').execute()).map((r) => r.token)).toEqual(['fr_3']);
    expect(await planOf(database, 'even')).toMatch(/fill_requests_metadata/);
    // A request made after the migration is found too; one without metadata is not in the index.
    await db.insertInto('fill_requests').values([request('fr_6', 6, 'even'), request('fr_7', 7, null)]).execute();
    expect((await byMetadata(db, 'even').execute()).map((r) => r.token)).toEqual(['fr_1', 'fr_4', 'fr_6']);
  });
});
