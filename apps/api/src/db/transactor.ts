import type { DatabaseHandle, Db } from './database.js';
import { GroupCommitTransactor } from './group-commit.js';

/**
 * Runs a unit of work atomically: every write in `work` commits together or not at all.
 * Services take a Transactor rather than opening transactions themselves, so the embedded
 * database can commit many concurrent units of work with one disk flush (group commit).
 */
export interface Transactor {
  run<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * Runs a unit of work that makes at most one write, in one statement (reads around it
   * need not see one snapshot). PostgreSQL runs it without `begin`/`commit`: the statement
   * commits alone, as durably, and saves two round trips. Absent: `run`.
   */
  runSingleWrite?<T>(work: (db: Db) => Promise<T>): Promise<T>;
}

/** A unit of work of at most one write statement (Transactor.runSingleWrite), on any Transactor. */
export function runSingleWrite<T>(transactor: Transactor, work: (db: Db) => Promise<T>): Promise<T> {
  return transactor.runSingleWrite ? transactor.runSingleWrite(work) : transactor.run(work);
}

/** One database transaction per unit of work. */
export class SimpleTransactor implements Transactor {
  constructor(private readonly db: Db) {}

  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** Each statement in autocommit: one write statement is atomic on its own. */
  runSingleWrite<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return work(this.db);
  }
}

/**
 * The transactor the service runs on: the embedded database has one writer, so concurrent
 * units of work share one commit (group commit); PostgreSQL gets a transaction per unit.
 */
export function transactorFor(database: DatabaseHandle): Transactor {
  return database.dialect === 'sqlite' ? new GroupCommitTransactor(database.db) : new SimpleTransactor(database.db);
}
