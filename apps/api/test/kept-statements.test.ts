import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/db/database.js';
import { probesTable, type ProbesTable } from './support/probes-table.js';
import type { TestDatabase } from './support/test-database.js';

/**
 * Statements are kept prepared (database.ts: the embedded database's statement cache and row
 * builders; postgres-statements.ts: PostgreSQL's named statements). A table's columns changed
 * by a migration, here or in another process, must show in the next read, never a row of
 * the old shape or a refused plan.
 */
describe('kept statements after a schema change', () => {
  let probes: ProbesTable;
  let database: TestDatabase;
  let other: DatabaseHandle;
  beforeEach(async () => {
    probes = await probesTable();
    ({ database, other } = probes);
  });
  afterEach(async () => probes?.dispose());

  const readAll = (db: DatabaseHandle['db']) => (db as never as import('kysely').Kysely<any>).selectFrom('probes').selectAll().where('id', '=', 'p1').execute();

  it('reads the new columns after a migration in this process', async () => {
    for (let i = 0; i < 3; i++) expect(await readAll(database.handle.db)).toEqual([{ id: 'p1', a: 'x' }]);
    await sql`alter table probes add column b text`.execute(database.handle.db);
    await sql`update probes set b = 'y'`.execute(database.handle.db);
    expect(await readAll(database.handle.db)).toEqual([{ id: 'p1', a: 'x', b: 'y' }]);
  });

  it('reads the new columns after a migration by another process, outside a transaction', async () => {
    for (let i = 0; i < 3; i++) expect(await readAll(database.handle.db)).toEqual([{ id: 'p1', a: 'x' }]);
    await sql`alter table probes add column b text`.execute(other.db);
    await sql`update probes set b = 'y'`.execute(other.db);
    // On the embedded database the reads of one turn share a snapshot (reads-of-a-turn.test.ts):
    // another process's commit shows from the next turn.
    await new Promise((done) => setImmediate(done));
    expect(await readAll(database.handle.db)).toEqual([{ id: 'p1', a: 'x', b: 'y' }]);
    expect(await readAll(database.handle.db)).toEqual([{ id: 'p1', a: 'x', b: 'y' }]);
  });

  it('inside a transaction, fails at most once after a migration by another process, then reads the new columns', async () => {
    for (let i = 0; i < 3; i++) expect(await readAll(database.handle.db)).toEqual([{ id: 'p1', a: 'x' }]);
    await sql`alter table probes add column b text`.execute(other.db);
    const inTransaction = () => database.handle.db.transaction().execute((trx) => readAll(trx));
    const first = await inTransaction().catch((error: unknown) => error);
    if (first instanceof Error) expect((first as { code?: string }).code).toBe('0A000');
    else expect(first).toEqual([{ id: 'p1', a: 'x', b: null }]);
    expect(await inTransaction()).toEqual([{ id: 'p1', a: 'x', b: null }]);
  });
});
