// Migrations run at every start of the service and before every admin command, so two of
// them may meet on a new database (the service and a command started together, several
// processes of the service). They serialize: one migrates, the others find it done.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.dispose();
  database = undefined;
});

/** The names of the migrations the database records as done. */
async function migrated(db: TestDatabase): Promise<string[]> {
  const rows = await db.handle.db
    .selectFrom('kysely_migration' as never)
    .select('name' as never)
    .orderBy('name' as never)
    .execute();
  return rows.map((r) => (r as { name: string }).name);
}

describe('migrating a new database', () => {
  it('from several processes at once (admin commands, each migrating first) succeeds in all of them', async () => {
    database = await createTestDatabase({ migrate: false });
    const url = database.url;
    const commands = Array.from({ length: 4 }, (_, n) =>
      run(process.execPath, ['bin/admin.mjs', 'create-customer', '--name', `Concurrent ${n}`], { cwd: apiRoot, env: { ...process.env, DATABASE_URL: url } }),
    );
    const outcomes = await Promise.allSettled(commands);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String((o.reason as Error).message) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
    const names = await migrated(database);
    expect(names.length).toBeGreaterThan(5);
    expect(new Set(names).size).toBe(names.length);
  }, 60_000);

  it('several times at once in one process, on one handle and on several, succeeds every time', async () => {
    database = await createTestDatabase({ migrate: false });
    // The embedded database's driver is synchronous: handles of one process would wait for
    // each other's lock on the event loop, so it shares one handle, as the service does.
    const others = process.env.TEST_DATABASE === 'postgres' ? Array.from({ length: 6 }, () => openDatabase(database!.url)) : [];
    try {
      const handles = [database.handle, database.handle, ...others];
      await Promise.all(handles.map((handle) => migrateToLatest(handle)));
      const names = await migrated(database);
      await migrateToLatest(database.handle);
      expect(await migrated(database)).toEqual(names);
    } finally {
      await Promise.all(others.map((handle) => handle.close()));
    }
  });
});
