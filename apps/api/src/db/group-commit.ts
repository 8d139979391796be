import { CompiledQuery } from 'kysely';
import type { Db, EmbeddedConnection } from './database.js';

/** The statements of a batch, compiled once. */
const BEGIN = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const savepoints: { open: CompiledQuery; release: CompiledQuery; rollback: CompiledQuery }[] = [];
function savepoint(i: number) {
  return (savepoints[i] ??= {
    open: CompiledQuery.raw(`savepoint unit_${i}`),
    release: CompiledQuery.raw(`release unit_${i}`),
    rollback: CompiledQuery.raw(`rollback to unit_${i}`),
  });
}

/** The longest a batch waits for more units (schedule): a few commits' time, well inside the p99 goal of a write. */
const MAX_WAIT_MS = 5;

/**
 * How a unit of work is kept apart from the others of its batch when it fails:
 * - `guarded`: in a savepoint of its own, rolled back alone (`run`);
 * - `single`: at most one write, in one statement (`runSingleWrite`), which SQLite undoes
 *   by itself when it fails; a failure after it leaves it written, as PostgreSQL's
 *   autocommit does. No savepoint;
 * - `rerunnable`: it may run twice (`runOptimistic`). No savepoint: a failure before any
 *   write of its own leaves nothing to undo; after one, the batch is rolled back and run
 *   again, with this unit guarded.
 */
type Kind = 'guarded' | 'single' | 'rerunnable';

interface Pending {
  work: (trx: Db) => Promise<unknown>;
  kind: Kind;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Outcome {
  ok: boolean;
  value: unknown;
}

/** The order a batch runs in: units that may run again first, so a batch run again runs only those twice. */
const ORDER: Record<Kind, number> = { rerunnable: 0, single: 1, guarded: 2 };

/**
 * Group commit for the embedded database. A durable commit costs one disk flush, and the
 * embedded database has one writer, so units of work that arrive together are run in one
 * transaction: a unit that fails is rolled back alone (Kind), the others commit together
 * with one flush. Every caller hears back only after that commit, so an answer is never
 * sent for a write that is not on disk. A Transactor (transactor.ts).
 *
 * A savepoint costs two statements, as many as a patient's create makes itself; so only
 * the units that need one to be undone alone get one. Without `connection` (what the
 * group commit reads of the embedded connection: database.ts), every unit is guarded.
 */
export class GroupCommitTransactor {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly connection?: EmbeddedConnection,
    private readonly maxBatch = 256,
  ) {}

  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.enqueue(work, 'guarded');
  }

  runSingleWrite<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.enqueue(work, this.connection ? 'single' : 'guarded');
  }

  runOptimistic<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.enqueue(work, this.connection ? 'rerunnable' : 'guarded');
  }

  private enqueue<T>(work: (trx: Db) => Promise<T>, kind: Kind): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, kind, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /**
   * Waits for the current I/O phase to hand in its units of work, then flushes them together;
   * while each turn of the event loop brings more, waits another turn, up to a batch's worth
   * of units or MAX_WAIT_MS after the first. A turn that brings none ends the wait, so the
   * loop never idles for it: the units wait while others' requests are being served. Without
   * the wait, clients answered by one commit send their next requests while the others' are
   * being served, and a steady load splits into two batches taking turns at committing, each
   * commit paying a disk flush for half of the clients.
   */
  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    const since = performance.now();
    let seen = this.queue.length;
    const wait = () => {
      if (this.queue.length > seen && this.queue.length < this.maxBatch && performance.now() - since < MAX_WAIT_MS) {
        seen = this.queue.length;
        setImmediate(wait);
        return;
      }
      this.scheduled = false;
      void this.flush();
    };
    setImmediate(wait);
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const batch = this.queue.splice(0, this.maxBatch).sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
    const guarded = new Set(batch.filter((item) => item.kind === 'guarded'));
    let outcomes: Outcome[] = [];
    try {
      await this.db.connection().execute(async (conn) => {
        for (;;) {
          outcomes = [];
          await conn.executeQuery(BEGIN);
          try {
            if (batch.length === 1) {
              // A unit alone needs no savepoint: when it fails, the whole transaction is rolled back.
              try {
                outcomes.push({ ok: true, value: await batch[0]!.work(conn) });
              } catch (error) {
                outcomes.push({ ok: false, value: error });
                await conn.executeQuery(ROLLBACK);
                return;
              }
            } else if (!(await this.runUnits(conn, batch, guarded, outcomes))) {
              // A unit that may run again failed after writing: all over again, that one guarded.
              await conn.executeQuery(ROLLBACK);
              continue;
            }
            await conn.executeQuery(COMMIT);
            return;
          } catch (error) {
            await conn.executeQuery(ROLLBACK).catch(() => undefined);
            throw error;
          }
        }
      });
      batch.forEach((item, i) => (outcomes[i]!.ok ? item.resolve(outcomes[i]!.value) : item.reject(outcomes[i]!.value)));
    } catch (error) {
      // The commit itself failed: nothing of the batch is written.
      for (const item of batch) item.reject(error);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  /**
   * Runs the units of a batch in its transaction, each outcome into `outcomes`. False when
   * the batch must run again: a rerunnable unit failed after writing (it is now guarded).
   * Throws when the batch cannot commit: SQLite ended the transaction after a unit's error.
   */
  private async runUnits(conn: Db, batch: readonly Pending[], guarded: Set<Pending>, outcomes: Outcome[]): Promise<boolean> {
    for (const [i, item] of batch.entries()) {
      if (guarded.has(item)) {
        await conn.executeQuery(savepoint(i).open);
        try {
          outcomes.push({ ok: true, value: await item.work(conn) });
          await conn.executeQuery(savepoint(i).release);
        } catch (error) {
          outcomes.push({ ok: false, value: error });
          await conn.executeQuery(savepoint(i).rollback);
          await conn.executeQuery(savepoint(i).release);
        }
        continue;
      }
      const connection = this.connection!;
      const writes = connection.writes;
      try {
        outcomes.push({ ok: true, value: await item.work(conn) });
      } catch (error) {
        if (!connection.inTransaction) throw error;
        if (item.kind === 'rerunnable' && connection.writes !== writes) {
          guarded.add(item);
          return false;
        }
        outcomes.push({ ok: false, value: error });
      }
    }
    return true;
  }
}
