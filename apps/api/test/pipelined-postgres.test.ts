import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertedWrite, executeInserts, insertRows, SimpleTransactor } from '../src/db/transactor.js';
import { isUniqueViolation, updatedOneRow, type Db } from '../src/db/database.js';
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

/** A database of its own with one table, `probes`, holding t1 = 'old'. */
async function probeDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  await sql`create table probes (token text primary key, a text not null)`.execute(database.handle.db);
  await sql`insert into probes (token, a) values ('t1', 'old')`.execute(database.handle.db);
  return database;
}

describe.runIf(postgres)('PostgreSQL transactions in fewer round trips', () => {
  let database: TestDatabase;
  const db = () => database.handle.db;
  const insertProbe = (trx: ReturnType<typeof db>, token: string) => executeInserts(trx, [insertRows(trx, 'probes' as never, [{ token, a: 'new' }] as never)]);
  const probes = async () => (await sql<{ token: string; a: string }>`select token, a from probes order by token`.execute(db())).rows;

  beforeEach(async () => {
    database = await probeDatabase();
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

/**
 * Optimistic units of work (Transactor.runOptimistic): a compare-and-set update marked
 * `assertedWrite` is taken to change its row and goes out with the unit's inserts and its
 * commit, so the unit is one round trip; when it changed no row the transaction rolls back
 * and the unit runs again with the update at once.
 */
describe.runIf(postgres)('PostgreSQL optimistic units of work', () => {
  let database: TestDatabase;
  const db = () => database.handle.db;
  const probes = async () => (await sql<{ token: string; a: string }>`select token, a from probes order by token`.execute(db())).rows;
  /** Sets t1 from `seen` to `to`, only if it still holds `seen`: whether it did. */
  const compareAndSet = async (trx: Db, seen: string, to: string) => {
    const update = (trx as unknown as Db & { updateTable(t: string): any }).updateTable('probes').set({ a: to }).where('token', '=', 't1').where('a', '=', seen);
    return updatedOneRow({ numUpdatedRows: (await trx.executeQuery(assertedWrite(update.compile()))).numAffectedRows ?? 0n });
  };
  const insertProbe = (trx: Db, token: string, a: string) => executeInserts(trx, [insertRows(trx, 'probes' as never, [{ token, a }] as never)]);
  /** A fill: sets t1 from old to filled and records it, or records that it was refused. */
  const fillOnce = (runs: string[], label: string) => async (trx: Db) => {
    runs.push(label);
    const filled = await compareAndSet(trx, 'old', 'filled');
    await insertProbe(trx, label, filled ? 'filled' : 'refused');
    return filled;
  };

  beforeEach(async () => {
    database = await probeDatabase();
  });
  afterEach(async () => {
    await database?.dispose();
  });

  it('sends begin, the compare-and-set, the inserts and commit in one round trip when the row still holds what was read', async () => {
    const runs: string[] = [];
    const { result, said } = await conversation(() => new SimpleTransactor(db()).runOptimistic(fillOnce(runs, 'f1')));
    expect(result).toBe(true);
    expect(runs).toEqual(['f1']);
    expect(said).toEqual(['> begin', '> with asserted', '> insert into', '> commit', '< begin', '< with asserted', '< insert into', '< commit']);
    expect(await probes()).toEqual([
      { token: 'f1', a: 'filled' },
      { token: 't1', a: 'filled' },
    ]);
  });

  it('leaves no trace of an optimistic run whose compare-and-set changed no row, and runs the unit again with the update at once', async () => {
    await sql`update probes set a = 'taken' where token = 't1'`.execute(db());
    const runs: string[] = [];
    const { result, said } = await conversation(() => new SimpleTransactor(db()).runOptimistic(fillOnce(runs, 'f1')));
    expect(result).toBe(false);
    expect(runs).toEqual(['f1', 'f1']);
    // The first run: one write, its commit a rollback (its update failed, its insert never ran). The second: the update answered before the insert went out.
    expect(said).toEqual([
      ...['> begin', '> with asserted', '> insert into', '> commit', '< begin', '< commit'],
      ...['> begin', '> update "probes"', '< begin', '< update "probes"', '> insert into', '> commit', '< insert into', '< commit'],
    ]);
    expect(await probes()).toEqual([
      { token: 'f1', a: 'refused' },
      { token: 't1', a: 'taken' },
    ]);
  });

  it('lets one of two concurrent fills of the same state through, and refuses the other on its second run', async () => {
    const runs: string[] = [];
    const transactor = new SimpleTransactor(db());
    // Started in different turns: each runs on its own (two in one turn share a transaction: gathered-units.test.ts).
    const first = transactor.runOptimistic(fillOnce(runs, 'f1'));
    await new Promise((turn) => setImmediate(turn));
    const outcomes = await Promise.all([first, transactor.runOptimistic(fillOnce(runs, 'f2'))]);
    expect(outcomes.sort()).toEqual([false, true]);
    expect(runs).toHaveLength(3);
    const rows = await probes();
    expect(rows.find((row) => row.token === 't1')!.a).toBe('filled');
    expect(rows.filter((row) => row.token !== 't1').map((row) => row.a).sort()).toEqual(['filled', 'refused']);
  });

  it('sends a statement after the compare-and-set with it, and that statement sees its change', async () => {
    const { result } = await conversation(() =>
      new SimpleTransactor(db()).runOptimistic(async (trx) => {
        await compareAndSet(trx, 'old', 'filled');
        return (await sql<{ a: string }>`select a from probes where token = 't1'`.execute(trx)).rows[0]!.a;
      }),
    );
    expect(result).toBe('filled');
  });

  it('runs a compare-and-set at once, with its real count, in a transaction that is not optimistic', async () => {
    await sql`update probes set a = 'taken' where token = 't1'`.execute(db());
    const runs: string[] = [];
    const { result, said } = await conversation(() => db().transaction().execute(fillOnce(runs, 'f1')));
    expect(result).toBe(false);
    expect(runs).toEqual(['f1']);
    expect(said).toEqual(['> begin', '> update "probes"', '< begin', '< update "probes"', '> insert into', '> commit', '< insert into', '< commit']);
  });
});
