import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { SimpleTransactor } from '../src/db/transactor.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

/**
 * The embedded database shared by two connections, as by the service and an admin command
 * run beside it: a unit of work that has read is never failed by another connection's write.
 */
describe.runIf(process.env.TEST_DATABASE !== 'postgres')('units of work on a shared embedded database', () => {
  let database: TestDatabase;
  let other: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    other = openDatabase(database.url);
    // The other connection gives up quickly instead of blocking this (single) thread 5 s.
    await sql`pragma busy_timeout = 50`.execute(other.db);
  });
  afterAll(async () => {
    await other?.close();
    await database?.dispose();
  });

  it('take the write lock when they begin: one that read commits, a write meanwhile from elsewhere waits', async () => {
    const insert = (db: DatabaseHandle['db'], name: string) =>
      db.insertInto('customers').values({ id: `cus_${name}`, name, created_at: new Date().toISOString() } as never).execute();
    let othersWrite: unknown;
    await new SimpleTransactor(database.handle.db).run(async (trx) => {
      await trx.selectFrom('customers').select('id').execute();
      // Another process writes between this unit's read and its write.
      othersWrite = await insert(other.db, 'elsewhere').then(
        () => 'written',
        (error: Error) => error.message,
      );
      await insert(trx, 'here');
    });
    expect(othersWrite).toMatch(/locked|busy/i);
    const names = await database.handle.db.selectFrom('customers').select('name').execute();
    expect(names.map((r) => r.name)).toContain('here');
    // Once the unit of work committed, the other connection writes as usual.
    await insert(other.db, 'elsewhere');
  });
});
