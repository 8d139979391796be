import { CompiledQuery } from 'kysely';
import type { Db } from './database.js';

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

interface Pending {
  work: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the embedded database. A durable commit costs one disk flush, and the
 * embedded database has one writer, so units of work that arrive together are run in one
 * transaction, each inside its own savepoint: a unit that fails is rolled back alone, the
 * others commit together with one flush. Every caller hears back only after that commit,
 * so an answer is never sent for a write that is not on disk. A Transactor (transactor.ts).
 */
export class GroupCommitTransactor {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 256,
  ) {}

  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Waits for the current I/O phase to hand in its units of work, then flushes them together. */
  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.db.connection().execute(async (conn) => {
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
          } else {
            for (const [i, item] of batch.entries()) {
              await conn.executeQuery(savepoint(i).open);
              try {
                outcomes.push({ ok: true, value: await item.work(conn) });
                await conn.executeQuery(savepoint(i).release);
              } catch (error) {
                outcomes.push({ ok: false, value: error });
                await conn.executeQuery(savepoint(i).rollback);
                await conn.executeQuery(savepoint(i).release);
              }
            }
          }
          await conn.executeQuery(COMMIT);
        } catch (error) {
          await conn.executeQuery(ROLLBACK).catch(() => undefined);
          throw error;
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
}
