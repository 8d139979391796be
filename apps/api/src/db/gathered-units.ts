import { CompiledQuery } from 'kysely';
import type { Db } from './database.js';
import { deferredWrite, OptimismFailed, SHARED, UNIT_END, UNIT_START } from './pipelined-postgres.js';
import { gatherThisTurn } from './turn-gathering.js';

/** An optimistic unit of work waiting for its transaction, and its caller's answer. */
interface Unit {
  work: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The most units one transaction carries: the units of a turn beyond it go in further
 * transactions at the same time. A transaction that fails runs each of its units again on
 * its own, so a bound on it bounds that work too.
 */
const MAX_UNITS = 64;

/**
 * How long a statement of a shared transaction waits for a row lock before the transaction
 * gives up and each of its units runs on its own. Far below PostgreSQL's `deadlock_timeout`
 * (1 s by default), so in a deadlock with another transaction the shared one, whose units
 * run again, is the one ended, never a unit of work that would fail its request.
 */
export const SHARED_LOCK_WAIT_MS = 100;

/** Sent with the transaction's `begin` (a deferred write: no round trip of its own). */
const LOCK_WAIT = deferredWrite(CompiledQuery.raw(`set local lock_timeout = ${SHARED_LOCK_WAIT_MS}`));

/**
 * Runs `work`, an optimistic unit of work (Transactor.runOptimistic), in one PostgreSQL
 * transaction with those of other requests: the units that requests start while the event
 * loop handles one round of I/O (or while the last shared transaction was out:
 * turn-gathering.ts) go in one transaction that sends nothing before its `commit`, so a
 * turn's fill requests are one write to PostgreSQL, one transaction and one commit record
 * instead of one each. Each caller hears back after that commit.
 *
 * A shared transaction carries only the units that need no answer from PostgreSQL before
 * their commit (their writes are inserts and asserted compare-and-sets: a fill request's).
 * A unit that asks for one (a read, a write whose count it uses) is taken out of it, its
 * statements with it, and runs in a transaction of its own at once, as without sharing: a
 * shared transaction never waits on a unit's round trips, nor holds a lock while its units
 * run. A unit that throws is taken out too, and its caller gets its error: it asked
 * PostgreSQL nothing, so it would have thrown on its own as well.
 *
 * The units run in order in the transaction, each after those before it, as the embedded
 * database's group commit runs them (group-commit.ts). When the commit fails (an asserted
 * write that changed no row, a row PostgreSQL refused, a lock waited for longer than
 * SHARED_LOCK_WAIT_MS), nothing of it is written and each of its units runs again on its own
 * (`own.optimistic`), so each caller hears its own outcome and no other's. A unit alone in
 * its transaction is as without sharing: the failure is its outcome, or, when its asserted
 * write changed no row, it runs again with its updates at once (`own.pessimistic`).
 *
 * Only the shared transaction holds the gathering: the units that run on their own start at
 * once, and the next shared transaction does not wait for them.
 */
export function runShared<T>(db: Db, work: (trx: Db) => Promise<T>, own: OwnRuns): Promise<T> {
  return new Promise<T>((resolve, reject) =>
    gatherThisTurn<Unit>(db, 'optimistic units of work', { work, resolve: resolve as (value: unknown) => void, reject }, (units) => {
      const transactions: Promise<void>[] = [];
      for (let i = 0; i < units.length; i += MAX_UNITS) transactions.push(runTogether(db, units.slice(i, i + MAX_UNITS), own));
      return Promise.all(transactions);
    }),
  );
}

/** How a unit runs in a transaction of its own: optimistic first (`optimistic`: Transactor.runOptimistic's own run), or not (`pessimistic`). */
export interface OwnRuns {
  optimistic<R>(work: (trx: Db) => Promise<R>): Promise<R>;
  pessimistic<R>(work: (trx: Db) => Promise<R>): Promise<R>;
}

/** Thrown to roll back a shared transaction left with no unit (it sends nothing then). */
class NothingShared extends Error {}

/**
 * Runs `units` in one shared transaction; settles when it has committed or rolled back (the
 * gathering's next transaction waits for that, not for the units that run on their own).
 */
async function runTogether(db: Db, units: Unit[], own: OwnRuns): Promise<void> {
  const runOwn = (unit: Unit, run: OwnRuns['optimistic'] = own.optimistic) => void run(unit.work).then(unit.resolve, unit.reject);
  const kept: { unit: Unit; result: unknown }[] = [];
  /** How many of `units` ran in the transaction (each kept, taken out or refused). */
  let ran = 0;
  try {
    await db.transaction().execute(async (trx) => {
      await trx.executeQuery(SHARED);
      // One unit is a transaction as it would be without sharing: no other's locks to give up for.
      if (units.length > 1) await trx.executeQuery(LOCK_WAIT);
      for (const unit of units) {
        await trx.executeQuery(UNIT_START);
        let outcome: { ok: true; result: unknown } | { ok: false; error: unknown };
        try {
          outcome = { ok: true, result: await unit.work(trx) };
        } catch (error) {
          outcome = { ok: false, error };
        }
        const ended = await trx.executeQuery<{ neededAnswer: boolean }>(outcome.ok ? UNIT_END.kept : UNIT_END.undone);
        ran++;
        if (ended.rows[0]!.neededAnswer) runOwn(unit);
        else if (outcome.ok) kept.push({ unit, result: outcome.result });
        else unit.reject(outcome.error);
      }
      if (!kept.length) throw new NothingShared();
    });
  } catch (error) {
    // Rolled back: nothing of it was written. A unit alone in its turn had its own outcome
    // (an asserted write that changed no row: it runs again with its updates at once); the
    // units of a shared one each run on their own, for theirs, as do those the transaction
    // never reached (it could not begin: each hears why from its own).
    if (error instanceof NothingShared) return;
    const alone = units.length === 1 && kept.length === 1;
    if (alone && error instanceof OptimismFailed) runOwn(kept[0]!.unit, own.pessimistic);
    else if (alone) kept[0]!.unit.reject(error);
    else for (const { unit } of kept) runOwn(unit);
    for (const unit of units.slice(ran)) runOwn(unit);
    return;
  }
  for (const { unit, result } of kept) unit.resolve(result);
}
