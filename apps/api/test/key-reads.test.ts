import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rowByKey, rowsByKeys } from '../src/db/transactor.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { statementsSent } from './support/sent-statements.js';

/**
 * Reads by key (`rowByKey`, `rowsByKeys`): on PostgreSQL, outside a transaction, the reads that
 * concurrent requests ask for in one turn of the event loop are sent as one statement
 * (db/key-reads.ts); each still gets its own row. On the embedded database each is read alone.
 */
const postgres = process.env.TEST_DATABASE === 'postgres';

describe('point reads by key', () => {
  let database: TestDatabase;
  const read = (value: string, db = database.handle.db) => rowByKey(db, 'probes' as never, 'token', value) as Promise<{ token: string; a: string } | undefined>;
  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    await sql`create table probes (token text primary key, a text not null)`.execute(database.handle.db);
    for (let i = 0; i < 8; i++) await sql`insert into probes (token, a) values (${`t${i}`}, ${`row ${i}`})`.execute(database.handle.db);
  });
  afterEach(async () => {
    await database?.dispose();
  });

  it('gives each of many concurrent reads its own row, the same row to reads of one key, and none for a key not stored', async () => {
    const wanted = ['t3', 't0', 'missing', 't7', 't3', 't5', 't1', 't2', 't4', 't6'];
    const { result, sent } = await statementsSent('probes', () => Promise.all(wanted.map((token) => read(token))));
    expect(result).toEqual(wanted.map((token) => (token === 'missing' ? undefined : { token, a: `row ${token.slice(1)}` })));
    // PostgreSQL: one statement for the ten reads.
    if (postgres) expect(sent).toEqual(['select * from "probes" where "token" = any($1)']);
  });

  it('gives reads of several keys, gathered with point reads, the rows of their own keys, each once', async () => {
    const rows = (values: string[]) => rowsByKeys(database.handle.db, 'probes' as never, 'token', values) as Promise<{ token: string }[]>;
    const { result, sent } = await statementsSent('probes', () => Promise.all([rows(['t1', 't2', 't1']), rows(['t2', 'missing']), read('t3'), rows([])]));
    expect(result.map((found) => (Array.isArray(found) ? found.map((row) => row.token) : found?.token))).toEqual([['t1', 't2'], ['t2'], 't3', []]);
    if (postgres) expect(sent).toEqual(['select * from "probes" where "token" = any($1)']);
    // Alone, a read of several keys is one statement too.
    const alone = await statementsSent('probes', () => rows(['t6', 't5']));
    expect(alone.result.map((row) => row.token).sort()).toEqual(['t5', 't6']);
    if (postgres) expect(alone.sent).toEqual(['select * from "probes" where "token" = any($1)']);
  });

  it('sends a read alone as a plain point read', async () => {
    const { result, sent } = await statementsSent('probes', () => read('t4'));
    expect(result).toEqual({ token: 't4', a: 'row 4' });
    if (postgres) expect(sent).toEqual(['select * from "probes" where "token" = $1']);
  });

  it('reads inside a transaction alone, in that transaction', async () => {
    const { result, sent } = await statementsSent('probes', () =>
      database.handle.db.transaction().execute(async (trx) => {
        await sql`update probes set a = 'changed' where token = 't1'`.execute(trx);
        return Promise.all([read('t1', trx), read('t2', trx)]);
      }),
    );
    expect(result).toEqual([
      { token: 't1', a: 'changed' },
      { token: 't2', a: 'row 2' },
    ]);
    if (postgres) expect(sent.filter((text) => text.startsWith('select'))).toEqual(['select * from "probes" where "token" = $1', 'select * from "probes" where "token" = $1']);
  });

  it.runIf(postgres)('answers each read on its own when PostgreSQL refuses one value of the gathered statement', async () => {
    // A NUL character is not valid text for PostgreSQL: the gathered statement fails as a whole.
    const { result, sent } = await statementsSent('probes', () => Promise.allSettled(['t1', 'bad\u0000value', 't2'].map((token) => read(token))));
    expect(result[0]).toEqual({ status: 'fulfilled', value: { token: 't1', a: 'row 1' } });
    expect(result[1]!.status).toBe('rejected');
    expect(result[2]).toEqual({ status: 'fulfilled', value: { token: 't2', a: 'row 2' } });
    expect(sent[0]).toBe('select * from "probes" where "token" = any($1)');
    expect(sent.slice(1).sort()).toEqual(Array(3).fill('select * from "probes" where "token" = $1'));
  });

  it.runIf(postgres)('sees a row written just before it', async () => {
    const reads = Promise.all([read('t8'), read('t0')]);
    expect(await reads).toEqual([undefined, { token: 't0', a: 'row 0' }]);
    await sql`insert into probes (token, a) values ('t8', 'row 8')`.execute(database.handle.db);
    expect(await Promise.all([read('t8'), read('t0')])).toEqual([
      { token: 't8', a: 'row 8' },
      { token: 't0', a: 'row 0' },
    ]);
  });
});
