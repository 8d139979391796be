import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { randomToken } from '../../src/tokens.js';

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The DATABASE_URL that reaches this database (for child processes such as the admin CLI). */
  url: string;
  dispose(): Promise<void>;
}

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A fresh, migrated database of the kind the vitest project names: a temp file, or a new
 * PostgreSQL database. `migrate: false` leaves it empty (to write data as an older schema held it).
 */
export async function createTestDatabase({ migrate = true } = {}): Promise<TestDatabase> {
  if (process.env.TEST_DATABASE === 'postgres') {
    // A database of its own (not only a schema): test files run at once, and a schema dropped
    // by one while another's migrator looks through the catalogue fails that migrator. Inside,
    // a schema of the same name on the search path, as a deployment's URL may set one.
    const name = `test_${randomToken(12).toLowerCase()}`;
    const server = new pg.Client({ connectionString: POSTGRES_URL });
    await server.connect();
    await server.query(`create database ${name}`);
    await server.end();
    const base = new URL(POSTGRES_URL);
    base.pathname = `/${name}`;
    const own = new pg.Client({ connectionString: base.toString() });
    await own.connect();
    await own.query(`create schema ${name}`);
    await own.end();
    base.searchParams.set('options', `-c search_path=${name}`);
    const url = base.toString();
    const handle = openDatabase(url);
    if (migrate) await migrateToLatest(handle);
    return {
      handle,
      url,
      async dispose() {
        await handle.close();
        const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
        await cleanup.connect();
        await cleanup.query(`drop database ${name} with (force)`);
        await cleanup.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pharmacy-test-'));
  const url = join(dir, 'test.db');
  const handle = openDatabase(url);
  if (migrate) await migrateToLatest(handle);
  return {
    handle,
    url,
    async dispose() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
