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
 * A fresh database of the kind the vitest project names: a temp file, or a new PostgreSQL
 * schema; migrated unless `migrated: false`.
 */
export async function createTestDatabase({ migrated = true }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (process.env.TEST_DATABASE === 'postgres') {
    const schema = `test_${randomToken(12).toLowerCase()}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const handle = openDatabase(url);
    if (migrated) await migrateToLatest(handle);
    return {
      handle,
      url,
      async dispose() {
        await handle.close();
        const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
        await cleanup.connect();
        await cleanup.query(`drop schema ${schema} cascade`);
        await cleanup.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pharmacy-test-'));
  const url = join(dir, 'test.db');
  const handle = openDatabase(url);
  if (migrated) await migrateToLatest(handle);
  return {
    handle,
    url,
    async dispose() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
