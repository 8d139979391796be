import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertUnlessConflict } from '../src/db/gathered-inserts.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { statementsSent } from './support/sent-statements.js';

/**
 * Inserts that skip a conflicting row (`insertUnlessConflict`, db/gathered-inserts.ts): on
 * PostgreSQL outside a transaction, the rows concurrent requests insert in one turn of the
 * event loop go as one statement, and each caller still hears whether its own row went in.
 */
const postgres = process.env.TEST_DATABASE === 'postgres';

describe('inserts unless in conflict', () => {
  let database: TestDatabase;
  const insert = (token: string, identity: string, size = 1, db = database.handle.db) => insertUnlessConflict(db, 'probes', ['owner', 'identity'], 'token', { token, owner: 'o', identity, size });
  const stored = async () =>
    (await sql<{ token: string; identity: string }>`select token, identity from probes order by token`.execute(database.handle.db)).rows.map((row) => `${row.token}:${row.identity}`);
  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    await sql`create table probes (token text primary key, owner text not null, identity text not null, size integer not null check (size > 0), unique (owner, identity))`.execute(database.handle.db);
    await sql`insert into probes (token, owner, identity, size) values ('t0', 'o', 'stored', 1)`.execute(database.handle.db);
  });
  afterEach(async () => {
    await database?.dispose();
  });

  it('tells each of many concurrent inserts whether its row went in: a conflict with a stored row, or with an earlier row of the same turn, is skipped', async () => {
    const { result, sent } = await statementsSent('probes', () =>
      Promise.all([insert('t1', 'a'), insert('t2', 'stored'), insert('t3', 'b'), insert('t4', 'a'), insert('t5', 'c')]),
    );
    expect(result).toEqual([true, false, true, false, true]);
    expect(await stored()).toEqual(['t0:stored', 't1:a', 't3:b', 't5:c']);
    // PostgreSQL: the five as one statement.
    if (postgres) expect(sent.map((text) => text.replace(/\(\$\d+, \$\d+, \$\d+, \$\d+\)/g, 'R'))).toEqual(['insert into "probes" ("token", "owner", "identity", "size") values R, R, R, R, R on conflict ("owner", "identity") do nothing returning "token"']);
  });

  it.runIf(postgres)('sends a gathering in the order of the rows\' conflicting columns, so two statements in flight meet their common rows in one order', async () => {
    const { result, parameters } = await statementsSent('probes', () => Promise.all([insert('t1', 'c'), insert('t2', 'a'), insert('t3', 'b'), insert('t4', 'a')]));
    // Of the two rows of identity `a`, the one that came first is inserted.
    expect(result).toEqual([true, true, true, false]);
    expect(parameters).toHaveLength(1);
    expect(parameters[0]!.filter((_, i) => i % 4 === 0)).toEqual(['t2', 't4', 't3', 't1']);
  });

  it.runIf(postgres)('sends a gathering of more values than one statement takes (65,535) as several statements', async () => {
    // 4 columns a row: 16,383 rows a statement.
    const count = 16_390;
    const { result, sent } = await statementsSent('probes', () => Promise.all(Array.from({ length: count }, (_, i) => insert(`n${i}`, `many ${i}`))));
    expect(result.every(Boolean)).toBe(true);
    expect(sent).toHaveLength(2);
    expect(((await sql<{ n: number }>`select count(*)::int as n from probes`.execute(database.handle.db)).rows[0]!.n)).toBe(count + 1);
  });

  it('gives the error of a row the database refuses to its caller only: the others are inserted', async () => {
    const { result, sent } = await statementsSent('probes', () => Promise.allSettled([insert('t1', 'a'), insert('t2', 'b', 0), insert('t3', 'c')]));
    expect(result[0]).toEqual({ status: 'fulfilled', value: true });
    expect(result[1]!.status).toBe('rejected');
    expect(String((result[1] as PromiseRejectedResult).reason)).toMatch(/check/i);
    expect(result[2]).toEqual({ status: 'fulfilled', value: true });
    expect(await stored()).toEqual(['t0:stored', 't1:a', 't3:c']);
    // PostgreSQL: the gathered statement, then each row alone.
    if (postgres) expect(sent.length).toBe(4);
  });

  it('inserts inside a transaction in that transaction, alone: rolled back with it', async () => {
    const { result, sent } = await statementsSent('probes', () =>
      database.handle.db
        .transaction()
        .execute(async (trx) => {
          expect(await Promise.all([insert('t1', 'a', 1, trx), insert('t2', 'stored', 1, trx)])).toEqual([true, false]);
          throw new Error('undo');
        })
        .catch((error: Error) => error.message),
    );
    expect(result).toBe('undo');
    expect(await stored()).toEqual(['t0:stored']);
    if (postgres) expect(sent.length).toBe(2);
  });
});
