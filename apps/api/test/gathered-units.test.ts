import pg from 'pg';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertedWrite, executeInserts, insertRows, SimpleTransactor } from '../src/db/transactor.js';
import { isUniqueViolation, openDatabase, updatedOneRow, type Db } from '../src/db/database.js';
import { SHARED_LOCK_WAIT_MS } from '../src/db/gathered-units.js';
import { conversation } from './support/pg-conversation.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

/**
 * Optimistic units of work of concurrent requests in one PostgreSQL transaction
 * (db/gathered-units.ts): the units started in one turn run one after the other in one
 * transaction sent in one write; when anything fails it, each unit runs again on its own,
 * so every caller hears its own outcome.
 */
const postgres = process.env.TEST_DATABASE === 'postgres';

type Probes = Db & { updateTable(table: string): any };

describe.runIf(postgres)('PostgreSQL units of work of one turn, in one transaction', () => {
  let database: TestDatabase;
  let transactor: SimpleTransactor;
  const db = () => database.handle.db;
  const probes = async () => (await sql<{ token: string; a: string }>`select token, a from probes order by token`.execute(db())).rows;
  /** The rows of probes, as `token=a`. */
  const stored = async () => (await probes()).map((row) => `${row.token}=${row.a}`);
  const insertProbe = (trx: Db, token: string, a: string) => executeInserts(trx, [insertRows(trx, 'probes' as never, [{ token, a }] as never)]);
  /** Sets `token` from `seen` to `to` only if it still holds `seen`, asserted (a fill's compare-and-set): whether it did. */
  const compareAndSet = async (trx: Db, token: string, seen: string, to: string) => {
    const update = (trx as Probes).updateTable('probes').set({ a: to }).where('token', '=', token).where('a', '=', seen);
    return updatedOneRow({ numUpdatedRows: (await trx.executeQuery(assertedWrite(update.compile()))).numAffectedRows ?? 0n });
  };
  /** A fill of `token`: sets it from old to filled and records it under `label`, or records that it was refused. */
  const fill = (runs: string[], label: string, token: string) => async (trx: Db) => {
    runs.push(label);
    const filled = await compareAndSet(trx, token, 'old', 'filled');
    await insertProbe(trx, label, filled ? 'filled' : 'refused');
    return filled;
  };
  /** The statements' first words, and the transactions' `begin`, `set`, `commit` and `rollback`. */
  const named = (text = '') => /^(begin|set local|commit|rollback|with asserted|with w0|insert into|update "probes"|select a)/.exec(text)?.[1];

  /** Runs `during` while another connection's transaction holds t2 (updated, not committed: `during` commits it). */
  const whileOtherHoldsT2 = async (during: (other: pg.Client) => Promise<void>) => {
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(`update probes set a = 'other' where token = 't2'`);
      await during(other);
    } finally {
      await other.end();
    }
  };

  beforeEach(async () => {
    database = await createTestDatabase({ migrate: false });
    await sql`create table probes (token text primary key, a text not null)`.execute(db());
    await sql`insert into probes (token, a) values ('t1', 'old'), ('t2', 'old'), ('t3', 'old')`.execute(db());
    transactor = new SimpleTransactor(db());
  });
  afterEach(async () => {
    await database?.dispose();
  });

  it('sends the units of one turn as one transaction in one write, each caller hearing back after its commit', async () => {
    const runs: string[] = [];
    const { result, said } = await conversation(named, () =>
      Promise.all([transactor.runOptimistic(fill(runs, 'f1', 't1')), transactor.runOptimistic(fill(runs, 'f2', 't2')), transactor.runOptimistic(fill(runs, 'f3', 't3'))]),
    );
    expect(result).toEqual([true, true, true]);
    expect(runs).toEqual(['f1', 'f2', 'f3']);
    const unit = ['with asserted', 'insert into'];
    const sent = ['begin', 'set local', ...unit, ...unit, ...unit, 'commit'];
    expect(said).toEqual([...sent.map((s) => `> ${s}`), ...sent.map((s) => `< ${s}`)]);
    expect(await stored()).toEqual(['f1=filled', 'f2=filled', 'f3=filled', 't1=filled', 't2=filled', 't3=filled']);
  });

  it('gives a unit that throws its own error, and commits the others together without it', async () => {
    const runs: string[] = [];
    const failing = async (trx: Db) => {
      runs.push('bad');
      await insertProbe(trx, 'bad', 'written');
      throw new Error('refused by its own rule');
    };
    const { result: outcomes, said } = await conversation(named, () =>
      Promise.allSettled([transactor.runOptimistic(fill(runs, 'f1', 't1')), transactor.runOptimistic(failing), transactor.runOptimistic(fill(runs, 'f3', 't3'))]),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused by its own rule');
    expect(runs).toEqual(['f1', 'bad', 'f3']);
    expect(said.filter((s) => s.startsWith('>'))).toEqual(['> begin', '> set local', '> with asserted', '> insert into', '> with asserted', '> insert into', '> commit']);
    expect(await stored()).toEqual(['f1=filled', 'f3=filled', 't1=filled', 't2=old', 't3=filled']);
  });

  it('runs a unit that asks PostgreSQL for an answer in a transaction of its own, at once, and the others together', async () => {
    const runs: string[] = [];
    const reading = async (trx: Db) => {
      runs.push('reader');
      const seen = (await sql<{ a: string }>`select a from probes where token = 't3'`.execute(trx)).rows[0]!.a;
      await insertProbe(trx, 'r', `saw ${seen}`);
      return seen;
    };
    // A unit that catches the refusal and goes on still runs on its own: what it did meanwhile is not kept.
    const swallowing = async (trx: Db) => {
      runs.push('swallower');
      let seen = 'nothing';
      try {
        seen = (await sql<{ a: string }>`select a from probes where token = 't3'`.execute(trx)).rows[0]!.a;
      } catch {
        // taken for a missing row
      }
      await insertProbe(trx, 's', `saw ${seen}`);
      return seen;
    };
    const { result, said } = await conversation(named, () =>
      Promise.all([transactor.runOptimistic(fill(runs, 'f1', 't1')), transactor.runOptimistic(reading), transactor.runOptimistic(swallowing), transactor.runOptimistic(fill(runs, 'f4', 't2'))]),
    );
    expect(result).toEqual([true, 'old', 'old', true]);
    expect(runs.slice(0, 4)).toEqual(['f1', 'reader', 'swallower', 'f4']);
    expect(runs.slice(4).sort()).toEqual(['reader', 'swallower']);
    // The shared transaction: the two fills only, sent in one write.
    const shared = said.filter((s) => s.startsWith('>')).slice(0, 7);
    expect(shared).toEqual(['> begin', '> set local', '> with asserted', '> insert into', '> with asserted', '> insert into', '> commit']);
    expect(await stored()).toEqual(['f1=filled', 'f4=filled', 'r=saw old', 's=saw old', 't1=filled', 't2=filled', 't3=old']);
  });

  it('gives a statement PostgreSQL refuses to its own unit only', async () => {
    const duplicate = async (trx: Db) => insertProbe(trx, 't2', 'again');
    const outcomes = await Promise.allSettled([transactor.runOptimistic(fill([], 'f1', 't1')), transactor.runOptimistic(duplicate), transactor.runOptimistic(fill([], 'f3', 't3'))]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason)).toBe(true);
    expect(await stored()).toEqual(['f1=filled', 'f3=filled', 't1=filled', 't2=old', 't3=filled']);
  });

  it('lets one of two fills of the same state through, and refuses the other on its own second run', async () => {
    const runs: string[] = [];
    const outcomes = await Promise.all([transactor.runOptimistic(fill(runs, 'f1', 't1')), transactor.runOptimistic(fill(runs, 'f2', 't1'))]);
    expect(outcomes.sort()).toEqual([false, true]);
    // Together (the second's compare-and-set changes no row: nothing is written), then each on its own, the loser twice.
    expect(runs).toHaveLength(5);
    const rows = await probes();
    expect(rows.find((row) => row.token === 't1')!.a).toBe('filled');
    expect(rows.filter((row) => row.token === 'f1' || row.token === 'f2').map((row) => row.a).sort()).toEqual(['filled', 'refused']);
  });

  it('carries at most 64 units in one transaction', async () => {
    await sql`insert into probes (token, a) select 'p' || n, 'old' from generate_series(1, 70) n`.execute(db());
    const { result, said } = await conversation(named, () => Promise.all(Array.from({ length: 70 }, (_, i) => transactor.runOptimistic(fill([], `f${i + 1}`, `p${i + 1}`)))));
    expect(result.every(Boolean)).toBe(true);
    expect(said.filter((s) => s === '> begin')).toHaveLength(2);
    expect(said.filter((s) => s === '> commit')).toHaveLength(2);
    expect(said.filter((s) => s === '> with asserted')).toHaveLength(70);
  });

  it('runs a unit kept alone in a shared transaction again on its own when that transaction gave up waiting for a lock', async () => {
    await whileOtherHoldsT2(async (other) => {
      const set = async (trx: Db) => {
        await trx.executeQuery(assertedWrite((trx as Probes).updateTable('probes').set({ a: 'set' }).where('token', '=', 't2').compile()));
        return 'set';
      };
      const reading = async (trx: Db) => (await sql<{ a: string }>`select a from probes where token = 't3'`.execute(trx)).rows[0]!.a;
      // The second unit reads, so it is taken out; the first is the shared transaction's only one, which waits for t2.
      const units = Promise.all([transactor.runOptimistic(set), transactor.runOptimistic(reading)]);
      await new Promise((done) => setTimeout(done, SHARED_LOCK_WAIT_MS * 3));
      await other.query('commit');
      expect(await units).toEqual(['set', 'old']);
      expect(await stored()).toEqual(['t1=old', 't2=set', 't3=old']);
    });
  });

  it('answers every caller when the transaction cannot begin', async () => {
    const url = new URL(database.url);
    url.pathname = '/no_such_database_here';
    const missing = openDatabase(url.toString());
    try {
      const unreachable = new SimpleTransactor(missing.db);
      const outcomes = await Promise.allSettled([unreachable.runOptimistic(fill([], 'f1', 't1')), unreachable.runOptimistic(fill([], 'f2', 't2'))]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toContain('no_such_database_here');
    } finally {
      await missing.close();
    }
  });

  it('is the one ended in a deadlock with another transaction, within its lock wait, and its units then run on their own', async () => {
    await whileOtherHoldsT2(async (other) => {
      /** Sets `token` to `to`, asserted to change its row (sent with the commit). */
      const set = (token: string, to: string) => async (trx: Db) => {
        await trx.executeQuery(assertedWrite((trx as Probes).updateTable('probes').set({ a: to }).where('token', '=', token).compile()));
        return to;
      };
      const started = performance.now();
      // Together: the shared transaction locks t1, then waits for t2, which the other transaction holds.
      const units = Promise.all([transactor.runOptimistic(set('t1', 'u1')), transactor.runOptimistic(set('t2', 'u2'))]);
      await new Promise((done) => setTimeout(done, 30));
      // The other transaction now waits for t1: a deadlock, which the shared transaction's lock wait ends before PostgreSQL's detector (1 s) would pick a side.
      await other.query(`update probes set a = 'other' where token = 't1'`);
      await other.query('commit');
      expect(await units).toEqual(['u1', 'u2']);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(performance.now() - started).toBeGreaterThanOrEqual(SHARED_LOCK_WAIT_MS);
      expect(await stored()).toEqual(['t1=u1', 't2=u2', 't3=old']);
    });
  });
});
