import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { GroupCommitTransactor } from '../src/db/group-commit.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

// Group commit is the embedded database's transactor; PostgreSQL runs one transaction per unit.
const embedded = process.env.TEST_DATABASE !== 'postgres';

describe.runIf(embedded)('group commit on the embedded database', () => {
  let database: TestDatabase;
  let transactor: GroupCommitTransactor;
  beforeAll(async () => {
    database = await createTestDatabase();
    transactor = new GroupCommitTransactor(database.handle.db, database.handle.embedded);
  });
  afterAll(async () => database?.dispose());

  const customer = (id: string) => ({ id, name: id, tenant_id: id, created_at: new Date().toISOString() });

  it('commits concurrent units together, and a failing unit is rolled back alone', async () => {
    const results = await Promise.allSettled([
      transactor.run((trx) => trx.insertInto('customers').values(customer('a')).execute()),
      transactor.run(async (trx) => {
        await trx.insertInto('customers').values(customer('b')).execute();
        throw new Error('business rule refused b');
      }),
      transactor.run((trx) => trx.insertInto('customers').values(customer('c')).execute()),
      // a constraint violation inside a unit is that unit's failure only
      transactor.run((trx) => trx.insertInto('customers').values(customer('a')).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    const ids = (await database.handle.db.selectFrom('customers').select('id').orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual(['a', 'c']);
  });

  it('answers each unit its own result, across more units than one batch holds', async () => {
    const small = new GroupCommitTransactor(database.handle.db, database.handle.embedded, 7);
    const values = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        small.run(async (trx) => {
          await trx.insertInto('customers').values(customer(`bulk${i}`)).execute();
          return i * 2;
        }),
      ),
    );
    expect(values).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
    const count = await database.handle.db.selectFrom('customers').select((eb) => eb.fn.countAll().as('n')).where('id', 'like', 'bulk%').executeTakeFirst();
    expect(Number(count?.n)).toBe(40);
  });
  it("keeps a statement's undo journal in memory, and a statement that fails half-way inside a batch changes nothing", async () => {
    // temp_store = MEMORY (2): the journal that undoes one statement inside a unit's savepoint
    // is not a temporary file made and deleted for each such statement.
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(database.handle.db);
    expect(rows[0]!.temp_store).toBe(2);
    const results = await Promise.allSettled([
      transactor.run((trx) => trx.insertInto('customers').values([customer('m1'), customer('m2')]).execute()),
      // Its third row is refused after two were written: the statement is undone whole.
      transactor.run((trx) => trx.insertInto('customers').values([customer('m3'), customer('m4'), customer('m1')]).execute()),
      transactor.run((trx) => trx.insertInto('customers').values([customer('m5'), customer('m6')]).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const ids = (await database.handle.db.selectFrom('customers').select('id').where('id', 'like', 'm%').orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual(['m1', 'm2', 'm5', 'm6']);
  });

  it('copies the log back into the file every 4,000 pages, not at each thousand', async () => {
    // A busy service rewrites the same pages commit after commit; a checkpoint copies each back
    // once, so fewer checkpoints copy less (bench/README.md: fill requests 5–10% more).
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.handle.db);
    expect(rows[0]!.wal_autocheckpoint).toBe(4000);
  });

  describe('savepoints only where a unit needs one', () => {
    const insert = (trx: Db, id: string) => trx.insertInto('customers').values(customer(id)).execute();
    const stored = async (prefix: string) =>
      (await database.handle.db.selectFrom('customers').select('id').where('id', 'like', `${prefix}%`).orderBy('id').execute()).map((r) => r.id);
    /** Units whose runs are counted by name. */
    const counting = () => {
      const runs = new Map<string, number>();
      const counted = (id: string, work: (trx: Db) => Promise<unknown>) => (trx: Db) => {
        runs.set(id, (runs.get(id) ?? 0) + 1);
        return work(trx);
      };
      return { runs, counted };
    };
    const writesOf = async (batch: () => Promise<unknown>) => {
      const before = database.handle.embedded!.writes;
      await batch();
      return database.handle.embedded!.writes - before;
    };

    it('runs single writes and units that may run again without savepoints, and guards the others with one each', async () => {
      // `begin`, five inserts, `commit`: no savepoint (each would add two statements that may write).
      const unguarded = await writesOf(() =>
        Promise.all([0, 1, 2].map((i) => transactor.runSingleWrite((db) => insert(db, `s1-${i}`))).concat([3, 4].map((i) => transactor.runOptimistic((trx) => insert(trx, `s1-${i}`))))),
      );
      expect(unguarded).toBe(7);
      const guarded = await writesOf(() => Promise.all([0, 1, 2, 3, 4].map((i) => transactor.run((trx) => insert(trx, `s2-${i}`)))));
      expect(guarded).toBe(7 + 2 * 5);
      expect(await stored('s1-')).toEqual(['s1-0', 's1-1', 's1-2', 's1-3', 's1-4']);
      expect(await stored('s2-')).toHaveLength(5);
    });

    it('fails a single write alone: a statement refused is undone by SQLite, the others commit', async () => {
      const results = await Promise.allSettled([
        transactor.runSingleWrite((db) => insert(db, 's3-a')),
        transactor.runSingleWrite((db) => db.insertInto('customers').values([customer('s3-b'), customer('s3-a')]).execute()),
        transactor.runSingleWrite((db) => insert(db, 's3-c')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await stored('s3-')).toEqual(['s3-a', 's3-c']);
    });

    it('leaves a single write written when its unit fails after it, as PostgreSQL does without a transaction', async () => {
      const results = await Promise.allSettled([
        transactor.runSingleWrite(async (db) => {
          await insert(db, 's4-a');
          throw new Error('failed after its write');
        }),
        transactor.runSingleWrite((db) => insert(db, 's4-b')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
      expect(await stored('s4-')).toEqual(['s4-a', 's4-b']);
    });

    it('fails a unit that may run again alone when it fails before writing, running nobody twice', async () => {
      const { runs, counted } = counting();
      const results = await Promise.allSettled([
        transactor.runOptimistic(counted('a', (trx) => insert(trx, 's5-a'))),
        transactor.runOptimistic(
          counted('b', async (trx) => {
            await trx.selectFrom('customers').select('id').execute();
            throw new Error('business rule refused b');
          }),
        ),
        transactor.runOptimistic(counted('c', (trx) => insert(trx, 's5-c'))),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(Object.fromEntries(runs)).toEqual({ a: 1, b: 1, c: 1 });
      expect(await stored('s5-')).toEqual(['s5-a', 's5-c']);
    });

    it('runs the batch again when a unit that may run again fails after writing, that unit in a savepoint, a guarded unit once', async () => {
      const { runs, counted } = counting();
      const results = await Promise.allSettled([
        // queued first, but a guarded unit runs after those that may run again: once
        transactor.run(counted('guarded', (trx) => insert(trx, 's6-guarded'))),
        transactor.runOptimistic(counted('a', (trx) => insert(trx, 's6-a'))),
        transactor.runOptimistic(
          counted('b', async (trx) => {
            await insert(trx, 's6-b');
            throw new Error('business rule refused b after its write');
          }),
        ),
        transactor.runOptimistic(counted('c', (trx) => insert(trx, 's6-c'))),
        transactor.runSingleWrite(counted('single', (db) => insert(db, 's6-single'))),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: 'business rule refused b after its write' });
      // a and b ran before b failed; c, the single write and the guarded unit had not yet run.
      expect(Object.fromEntries(runs)).toEqual({ a: 2, b: 2, c: 1, single: 1, guarded: 1 });
      expect(await stored('s6-')).toEqual(['s6-a', 's6-c', 's6-guarded', 's6-single']);
    });

    it('fails the whole batch when SQLite ended its transaction after a unit without a savepoint failed', async () => {
      const results = await Promise.allSettled([
        transactor.runSingleWrite((db) => insert(db, 's7-a')),
        transactor.runSingleWrite(async (db) => {
          // what SQLite does itself after a full disk or an I/O error
          await sql`rollback`.execute(db);
          throw new Error('disk full');
        }),
        transactor.runSingleWrite((db) => insert(db, 's7-c')),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(await stored('s7-')).toEqual([]);
      expect(database.handle.embedded!.inTransaction).toBe(false);
    });
  });

  describe('a batch waits while each turn of the event loop brings more units', () => {
    const insert = (db: Db, id: string) => db.insertInto('customers').values(customer(id)).execute();

    /**
     * Hands in units as requests under load do: two in one turn of the event loop, then one
     * in each following turn, until `more` says stop. Resolves to the units' answers.
     */
    const handInOverTurns = (unit: (i: number) => Promise<unknown>, more: (i: number) => boolean) =>
      new Promise<Promise<unknown>[]>((done) => {
        const units = [unit(0), unit(1)];
        const next = () => {
          if (!more(units.length)) return done(units);
          units.push(unit(units.length));
          setImmediate(next);
        };
        setImmediate(next);
      });

    it('commits units handed in over consecutive turns together', async () => {
      const before = database.handle.embedded!.writes;
      const units = await handInOverTurns((i) => transactor.runSingleWrite((db) => insert(db, `w1-${i}`)), (i) => i < 6);
      await Promise.all(units);
      // `begin`, six inserts, `commit`: one batch, where one turn's wait would make five.
      expect(database.handle.embedded!.writes - before).toBe(8);
    });

    it('commits apart units handed in after a turn that brought none', async () => {
      const before = database.handle.embedded!.writes;
      const first = transactor.runSingleWrite((db) => insert(db, 'w2-a'));
      await new Promise((done) => setImmediate(done));
      await first;
      await transactor.runSingleWrite((db) => insert(db, 'w2-b'));
      expect(database.handle.embedded!.writes - before).toBe(6);
    });

    it('stops waiting a few milliseconds after the first unit, though units keep coming every turn', async () => {
      // No bound from the batch's size here: only the time bounds the wait.
      const large = new GroupCommitTransactor(database.handle.db, database.handle.embedded, 1_000_000);
      const before = database.handle.embedded!.writes;
      const started = Date.now();
      let firstAnsweredAfter = Infinity;
      const unit = (i: number) => {
        const answered = large.runSingleWrite((db) => insert(db, `w3-${i}`));
        return i > 0 ? answered : answered.then(() => (firstAnsweredAfter = Date.now() - started));
      };
      // Units keep coming until the first is answered, or for 2 s.
      const units = await handInOverTurns(unit, () => firstAnsweredAfter === Infinity && Date.now() - started < 2_000);
      await Promise.all(units);
      expect(firstAnsweredAfter).toBeLessThan(1_000);
      // The batch waited for units of several turns, then committed them together (one
      // `begin` and one `commit` beside their inserts).
      expect(units.length).toBeGreaterThan(3);
      expect(database.handle.embedded!.writes - before - units.length).toBe(2);
    });
  });
});
