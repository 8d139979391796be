import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeInserts, insertRows } from '../src/db/transactor.js';
import { isUniqueViolation } from '../src/db/database.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

/**
 * PostgreSQL's transactions in fewer round trips (db/pipelined-postgres.ts): `begin` goes out
 * with the transaction's first statement, the inserts a unit of work ends with
 * (executeInserts) with its `commit`, each batch before any of its answers is in. What the
 * transaction does is unchanged: it commits all or nothing, a failed insert fails it, and a
 * statement after an insert sees the inserted row.
 */
const postgres = process.env.TEST_DATABASE === 'postgres';

type Traced = { text?: string; submit: (...args: unknown[]) => unknown; handleReadyForQuery: (...args: unknown[]) => unknown };
const Query = createRequire(import.meta.url)('pg/lib/query.js') as { prototype: Traced };

/** What `call` answered, and its conversation with PostgreSQL: `> sql` when a statement went out, `< sql` when its answer was in. */
async function conversation<T>(call: () => Promise<T>): Promise<{ result: T; said: string[] }> {
  const said: string[] = [];
  const { submit, handleReadyForQuery } = Query.prototype;
  const short = (text = '') => text.split(' ').slice(0, 2).join(' ');
  Query.prototype.submit = function (this: Traced, ...args: unknown[]) {
    said.push(`> ${short(this.text)}`);
    return submit.apply(this, args);
  };
  Query.prototype.handleReadyForQuery = function (this: Traced, ...args: unknown[]) {
    said.push(`< ${short(this.text)}`);
    return handleReadyForQuery.apply(this, args);
  };
  try {
    return { result: await call(), said };
  } finally {
    Object.assign(Query.prototype, { submit, handleReadyForQuery });
  }
}

describe.runIf(postgres)('PostgreSQL transactions in fewer round trips', () => {
  let database: TestDatabase;
  const db = () => database.handle.db;
  const insertProbe = (trx: ReturnType<typeof db>, token: string) => executeInserts(trx, [insertRows(trx, 'probes' as never, [{ token, a: 'new' }] as never)]);
  const probes = async () => (await sql<{ token: string; a: string }>`select token, a from probes order by token`.execute(db())).rows;

  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    await sql`create table probes (token text primary key, a text not null)`.execute(db());
    await sql`insert into probes (token, a) values ('t1', 'old')`.execute(db());
  });
  afterEach(async () => {
    await database?.dispose();
  });

  it('sends begin with the first statement and the closing inserts with commit: two round trips for update then insert', async () => {
    const { result, said } = await conversation(() =>
      db()
        .transaction()
        .execute(async (trx) => {
          const updated = await sql`update probes set a = 'changed' where token = 't1'`.execute(trx);
          await insertProbe(trx, 't2');
          return updated.numAffectedRows;
        }),
    );
    expect(result).toBe(1n);
    expect(said).toEqual(['> begin', '> update probes', '< begin', '< update probes', '> insert into', '> commit', '< insert into', '< commit']);
    expect(await probes()).toEqual([
      { token: 't1', a: 'changed' },
      { token: 't2', a: 'new' },
    ]);
  });

  it('sends the inserts before a later statement of the transaction, which sees them', async () => {
    const { result, said } = await conversation(() =>
      db()
        .transaction()
        .execute(async (trx) => {
          await insertProbe(trx, 't2');
          return (await sql<{ n: string }>`select count(*) as n from probes`.execute(trx)).rows[0]!.n;
        }),
    );
    expect(Number(result)).toBe(2);
    expect(said).toEqual(['> begin', '> insert into', '> select count(*)', '< begin', '< insert into', '< select count(*)', '> commit', '< commit']);
  });

  it('fails the transaction, writing nothing, when an insert sent with the commit fails', async () => {
    const { result, said } = await conversation(() =>
      db()
        .transaction()
        .execute(async (trx) => {
          await sql`update probes set a = 'changed' where token = 't1'`.execute(trx);
          await insertProbe(trx, 't1'); // t1 is taken: refused at the commit
          return 'answered';
        })
        .catch((error: unknown) => error),
    );
    expect(isUniqueViolation(result)).toBe(true);
    // The failed insert has no answer of its own but its error; the commit of an aborted transaction rolled it back.
    expect(said).toEqual(['> begin', '> update probes', '< begin', '< update probes', '> insert into', '> commit', '< commit']);
    expect(await probes()).toEqual([{ token: 't1', a: 'old' }]);
  });

  it('sends nothing for a transaction that rolls back before its first statement, and never the inserts of one that fails after them', async () => {
    const failing = (work: (trx: ReturnType<typeof db>) => Promise<void>) =>
      conversation(() =>
        db()
          .transaction()
          .execute(work)
          .catch((error: Error) => error.message),
      );
    const before = await failing(async () => {
      throw new Error('refused');
    });
    expect(before).toEqual({ result: 'refused', said: [] });
    const after = await failing(async (trx) => {
      await insertProbe(trx, 't2');
      throw new Error('refused');
    });
    expect(after).toEqual({ result: 'refused', said: [] });
    const empty = await conversation(() => db().transaction().execute(async () => 'nothing'));
    expect(empty).toEqual({ result: 'nothing', said: [] });
    expect(await probes()).toEqual([{ token: 't1', a: 'old' }]);
  });

  it('rolls back a transaction whose statement failed, and leaves its connection good for the next ones', async () => {
    const failed = await db()
      .transaction()
      .execute(async (trx) => {
        await insertProbe(trx, 't2');
        await sql`insert into probes (token, a) values ('t1', 'again')`.execute(trx);
      })
      .catch((error: unknown) => error);
    expect(isUniqueViolation(failed)).toBe(true);
    // Every connection of the pool at once, each in a transaction of its own: none is left aborted.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        db()
          .transaction()
          .execute(async (trx) => {
            await sql`update probes set a = ${`by ${i}`} where token = 't1'`.execute(trx);
            await insertProbe(trx, `n${String(i).padStart(2, '0')}`);
          }),
      ),
    );
    const rows = await probes();
    expect(rows.map((row) => row.token)).toEqual(['n00', 'n01', 'n02', 'n03', 'n04', 'n05', 'n06', 'n07', 'n08', 'n09', 'n10', 'n11', 't1']);
    expect(rows.find((row) => row.token === 't1')!.a).toMatch(/^by \d+$/);
  });

  it('runs inserts outside a transaction at once', async () => {
    const { said } = await conversation(() => insertProbe(db(), 't3'));
    expect(said).toEqual(['> insert into', '< insert into']);
    expect((await probes()).map((row) => row.token)).toEqual(['t1', 't3']);
  });
});
