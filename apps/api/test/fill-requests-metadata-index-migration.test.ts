// Migration 026 on a database written before it: `fill_requests_metadata` becomes a partial
// index of the requests that carry metadata; every request stays, and the search by
// metadata finds the same requests through it.
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { databaseAt, queryPlan, storedFillRequest, storedPatient } from './support/migration-fixtures.js';
import type { TestDatabase } from './support/test-database.js';

const request = (token: string, day: number, metadata: string | null) => storedFillRequest(token, 'pat_1', day, { metadata });

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

let database: TestDatabase;
beforeEach(async () => {
  database = await databaseAt('025-fills-found-by-patient');
  const db = database.handle.db as Kysely<any>;
  await db.insertInto('patients').values(storedPatient('pat_1')).execute();
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
    expect(await queryPlan(database, byMetadata(db, 'even').compile())).toMatch(/fill_requests_metadata/);
    // A request made after the migration is found too; one without metadata is not in the index.
    await db.insertInto('fill_requests').values([request('fr_6', 6, 'even'), request('fr_7', 7, null)]).execute();
    expect((await byMetadata(db, 'even').execute()).map((r) => r.token)).toEqual(['fr_1', 'fr_4', 'fr_6']);
  });
});
