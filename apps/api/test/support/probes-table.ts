import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface ProbesTable {
  database: TestDatabase;
  /** Another connection to the same database, as another process (the admin commands) has. */
  other: DatabaseHandle;
  dispose(): Promise<void>;
}

/**
 * An unmigrated test database holding one table, `probes (id, a)`, with one row (`p1`,
 * `x`), and a second connection to it: for what one connection sees of another's changes.
 */
export async function probesTable(): Promise<ProbesTable> {
  const database = await createTestDatabase({ migrate: false });
  const other = openDatabase(database.url);
  await sql`create table probes (id text primary key, a text)`.execute(database.handle.db);
  await sql`insert into probes (id, a) values ('p1', 'x')`.execute(database.handle.db);
  return {
    database,
    other,
    async dispose() {
      await other.close();
      await database.dispose();
    },
  };
}
