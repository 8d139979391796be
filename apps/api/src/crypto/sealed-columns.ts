import { sql, type Kysely } from 'kysely';
import { updatedOneRow } from '../db/database.js';

/**
 * Where a table keeps sealed values: its key columns (in order; their values name the
 * record in each value's context) and its sealed columns. Each area declares its own
 * beside its table; the kernel names no table.
 */
export interface SealedColumns {
  table: string;
  key: readonly string[];
  columns: readonly string[];
}

/** What a pass did to one sealed column. */
export interface SealedColumnCount {
  field: string;
  /** Values read (not null). */
  values: number;
  rewritten: number;
  /** Rows changed by someone else between the read and the write: their new values were kept. */
  changed_meanwhile: number;
}

type Row = Record<string, unknown>;

/** The new value of a sealed value read in `context`; undefined leaves it as it is. */
export type Rewrite = (value: string, context: string, row: Row) => string | undefined | Promise<string | undefined>;

/** Runs one batch's writes atomically (a transactor, or the migration's own transaction). */
export type BatchWriter = (work: (trx: Kysely<any>) => Promise<void>) => Promise<void>;

/**
 * The context a value of `column` is sealed in, in a row of `spec`'s table: its table,
 * column and record (`patients.ssn_encrypted:<token>`). A value copied to another row or
 * column does not open (secret-box.ts binds it as associated data).
 */
export function contextOf(spec: SealedColumns, column: string, record: object): string {
  return `${spec.table}.${column}:${spec.key.map((k) => String((record as Record<string, unknown>)[k])).join(':')}`;
}

/**
 * Rewrites every sealed value of a table, `batchSize` rows at a time in key order (a pass
 * holds no lock between batches, so it can run beside the service). A row's new values are
 * written only if the row still holds the values read (compare and set): a row the service
 * changed meanwhile keeps the service's values and is counted as changed meanwhile.
 */
export async function rewriteSealedColumns(
  db: Kysely<any>,
  write: BatchWriter,
  spec: SealedColumns,
  rewrite: Rewrite,
  batchSize = 200,
): Promise<SealedColumnCount[]> {
  const counts = new Map(spec.columns.map((c) => [c, { field: `${spec.table}.${c}`, values: 0, rewritten: 0, changed_meanwhile: 0 }]));
  let after: unknown[] | undefined;
  for (;;) {
    let query = db
      .selectFrom(spec.table)
      .select([...spec.key, ...spec.columns])
      .where((eb) => eb.or(spec.columns.map((c) => eb(c, 'is not', null))));
    if (after) query = query.where(sql<boolean>`(${sql.join(spec.key.map((k) => sql.ref(k)))}) > (${sql.join(after)})`);
    for (const k of spec.key) query = query.orderBy(k);
    const rows = (await query.limit(batchSize).execute()) as Row[];
    if (rows.length === 0) break;
    after = spec.key.map((k) => rows[rows.length - 1]![k]);

    const changes: Array<{ row: Row; set: Record<string, string> }> = [];
    for (const row of rows) {
      const set: Record<string, string> = {};
      for (const column of spec.columns) {
        const value = row[column];
        if (typeof value !== 'string') continue;
        counts.get(column)!.values++;
        const next = await rewrite(value, contextOf(spec, column, row), row);
        if (next !== undefined && next !== value) set[column] = next;
      }
      if (Object.keys(set).length > 0) changes.push({ row, set });
    }
    if (changes.length === 0) continue;
    await write(async (trx) => {
      for (const { row, set } of changes) {
        let update = trx.updateTable(spec.table).set(set);
        for (const column of [...spec.key, ...Object.keys(set)]) update = update.where(column, '=', row[column]);
        const changed = updatedOneRow(await update.executeTakeFirst());
        for (const column of Object.keys(set)) counts.get(column)![changed ? 'rewritten' : 'changed_meanwhile']++;
      }
    });
  }
  return [...counts.values()];
}

/** How many values of each sealed column do not start with `prefix` (are not sealed under the current key). */
export async function countNotStartingWith(db: Kysely<any>, spec: SealedColumns, prefix: string): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const column of spec.columns) {
    const row = await db
      .selectFrom(spec.table)
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where(column, 'is not', null)
      .where(column, 'not like', `${prefix}%`)
      .executeTakeFirstOrThrow();
    result[`${spec.table}.${column}`] = Number(row.n);
  }
  return result;
}
