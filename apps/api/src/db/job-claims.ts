import type { Kysely, Selectable } from 'kysely';
import type { Database, Db, Dialect } from './database.js';
import type { Transactor } from './transactor.js';

/** Tables whose rows are background jobs: a row is claimed by setting its `locked_until`. */
type JobTableName = {
  [T in keyof Database]: Database[T] extends { id: string; locked_until: string | null } ? T : never;
}[keyof Database];

/** Where a kind of job waits, and when one is due. */
export interface JobTable<T extends JobTableName> {
  table: T;
  /** The column (ISO 8601 text) from which a row is due; rows are claimed earliest first. */
  dueAt: keyof Database[T] & string;
  /** The column and values of the states in which a row still has work to do. */
  state: { column: keyof Database[T] & string; values: readonly string[] };
}

/**
 * The one way background workers take jobs (webhook deliveries, sandbox steps, scheduled
 * work): a worker claims due rows by setting `locked_until` (a lease), works on them, and
 * releases or reschedules each. A worker that stops mid-job leaves a lease that expires, so
 * the job is taken again: jobs run at least once.
 */
export class JobClaims {
  constructor(
    private readonly db: Db,
    private readonly transactor: Transactor,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Claims up to `limit` due rows for `leaseMs`, earliest due first. A plain read comes
   * first, so idle polling writes nothing. The claim itself is one UPDATE in a unit of work:
   * on PostgreSQL its candidates are selected `FOR UPDATE SKIP LOCKED`, so processes sharing
   * the database claim disjoint rows; the embedded database's unit of work begins IMMEDIATE
   * (one writer), so claims never interleave. The lease is re-checked by the UPDATE itself,
   * so a claim that won in between is not taken over.
   */
  async claim<T extends JobTableName>(jobs: JobTable<T>, limit: number, leaseMs: number): Promise<Selectable<Database[T]>[]> {
    const now = new Date();
    const nowIso = now.toISOString();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    // The job tables differ in their columns, so the SQL is built over untyped names.
    const table: string = jobs.table;
    const dueAt: string = jobs.dueAt;
    const stateColumn: string = jobs.state.column;
    const due = (db: Kysely<any>) =>
      db
        .selectFrom(table)
        .select('id')
        .where(stateColumn, 'in', jobs.state.values)
        .where(dueAt, '<=', nowIso)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]))
        .orderBy(dueAt)
        .limit(limit);
    if (!(await due(this.db as Kysely<any>).executeTakeFirst())) return [];
    const rows = await this.transactor.run(async (trx) => {
      let candidates = due(trx as Kysely<any>);
      if (this.dialect === 'postgres') candidates = candidates.forUpdate().skipLocked();
      return (trx as Kysely<any>)
        .updateTable(table)
        .set({ locked_until: until })
        .where('id', 'in', candidates)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]))
        .returningAll()
        .execute();
    });
    return (rows as Record<string, unknown>[]).sort((a, b) => String(a[dueAt]).localeCompare(String(b[dueAt]))) as Selectable<Database[T]>[];
  }
}
