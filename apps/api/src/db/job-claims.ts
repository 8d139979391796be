import type { Kysely, Selectable } from 'kysely';
import type { Database, Db, Dialect } from './database.js';
import { plannedEachTime } from './postgres-statements.js';
import type { Transactor } from './transactor.js';
import { now as clockNow } from '../clock.js';

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
 * Caps how many rows of one group (rows alike in `columns`: one webhook endpoint's
 * deliveries) a claimant holds at once, so one group cannot take every slot. The claimant
 * says what it holds; groups at the cap are left out of the claim, and one claim takes no
 * more of a group than the room it has left.
 */
export interface GroupCap<T extends JobTableName> {
  columns: readonly (keyof Database[T] & string)[];
  /** At most this many rows of one group at once. */
  max: number;
  /** How many rows of each group the claimant holds now, by `groupKey`. */
  held: ReadonlyMap<string, number>;
  /**
   * Whether to look past the rows of groups at the cap for other groups' rows (the default).
   * That reads past their whole backlog; with false, the claim reads only the earliest due
   * rows, whatever their group, and takes those of groups with room.
   */
  pastFull?: boolean;
}

/** The key of a row's group in `GroupCap.held`: its values of the cap's columns. */
export function groupKey(columns: readonly string[], row: Record<string, unknown>): string {
  return JSON.stringify(columns.map((column) => row[column]));
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
   * first, so idle polling writes nothing. The claim itself is a unit of work: on PostgreSQL
   * its candidates are selected `FOR UPDATE SKIP LOCKED`, so processes sharing the database
   * claim disjoint rows; the embedded database's unit of work begins IMMEDIATE (one writer),
   * so claims never interleave. The lease is re-checked by the UPDATE itself, so a claim
   * that won in between is not taken over.
   *
   * With a `cap`, groups at their cap are not candidates, and the candidates are trimmed to
   * each group's room; when that left rows out, the next candidates (without the groups now
   * full) are read in the same unit of work, so one claim fills as many rows as the groups
   * allow. Fewer rows than `limit` then means nothing else is due outside full groups.
   */
  async claim<T extends JobTableName>(jobs: JobTable<T>, limit: number, leaseMs: number, cap?: GroupCap<T>): Promise<Selectable<Database[T]>[]> {
    const now = clockNow();
    const nowIso = now.toISOString();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    // The job tables differ in their columns, so the SQL is built over untyped names.
    const table: string = jobs.table;
    const dueAt: string = jobs.dueAt;
    const stateColumn: string = jobs.state.column;
    const groupColumns: readonly string[] = cap?.columns ?? [];
    const held = new Map(cap?.held);
    const due = (db: Kysely<any>, count: number) => {
      let query = db
        .selectFrom(table)
        .select(['id', ...groupColumns])
        .where(stateColumn, 'in', jobs.state.values)
        .where(dueAt, '<=', nowIso)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]));
      const full = cap && cap.pastFull !== false ? [...held].filter(([, n]) => n >= cap.max).map(([key]) => JSON.parse(key) as unknown[]) : [];
      if (full.length > 0) {
        query = query.where((eb) => eb.not(eb.or(full.map((values) => eb.and(groupColumns.map((column, i) => eb(column, '=', values[i])))))));
      }
      query = query.orderBy(dueAt).limit(count);
      return db === this.db || this.dialect !== 'postgres' ? query : query.forUpdate().skipLocked();
    };
    // Planned at each poll (plannedEachTime): a plan kept from when the table was empty would scan it whole.
    const read = (db: Kysely<any>, count: number) => db.executeQuery<Record<string, unknown>>(plannedEachTime(due(db, count).compile())).then((result) => result.rows);
    if ((await read(this.db as Kysely<any>, 1)).length === 0) return [];
    const rows = await this.transactor.run(async (trx) => {
      // Without a cap the candidates (ids only) stay a subquery of the UPDATE: one statement.
      let ids: string[] | ReturnType<typeof due> = due(trx as Kysely<any>, limit);
      if (cap) {
        const admitted: string[] = [];
        for (;;) {
          const candidates = await read(trx as Kysely<any>, limit - admitted.length);
          const fit = withinCap(candidates, cap, held);
          admitted.push(...fit);
          if (fit.length === candidates.length || admitted.length >= limit || cap.pastFull === false) break;
        }
        if (admitted.length === 0) return [];
        ids = admitted;
      }
      const claim = (trx as Kysely<any>)
        .updateTable(table)
        .set({ locked_until: until })
        .where('id', 'in', ids)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]))
        .returningAll();
      // Without a cap its candidates are its subquery, planned at each claim as the read is.
      return (await trx.executeQuery(Array.isArray(ids) ? claim.compile() : plannedEachTime(claim.compile()))).rows;
    });
    return (rows as Record<string, unknown>[]).sort((a, b) => String(a[dueAt]).localeCompare(String(b[dueAt]))) as Selectable<Database[T]>[];
  }
}

/** The ids of the candidates (earliest due first) that fit in their group's room; counts them in `held`. */
function withinCap(candidates: Record<string, unknown>[], cap: GroupCap<any>, held: Map<string, number>): string[] {
  const ids: string[] = [];
  for (const row of candidates) {
    const key = groupKey(cap.columns, row);
    const holds = held.get(key) ?? 0;
    if (holds >= cap.max) continue;
    held.set(key, holds + 1);
    ids.push(row.id as string);
  }
  return ids;
}
