import { CompiledQuery } from 'kysely';
import type { Db } from './database.js';
import { gatherThisTurn } from './turn-gathering.js';

type Row = Record<string, unknown>;

interface Waiter {
  values: readonly string[];
  resolve: (rows: Row[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads by key on PostgreSQL outside a transaction (`gathers`), gathered: the reads of one
 * table and column that requests ask for in one turn of the event loop (or while the last
 * such statement was out: turn-gathering.ts) are sent as one statement, `where column =
 * any($1)`: one round trip, one `writev`, one statement for
 * PostgreSQL to run, instead of one each. A read alone is sent as it was asked (`where
 * column = $1` for one key). Each read gets the rows whose key is one of its values (keys
 * are text, which PostgreSQL compares exactly too), a row once however often its key is
 * named. When the gathered statement fails (a value PostgreSQL refuses), each read is sent
 * alone, so each gets its own answer.
 *
 * Reads of one key share its row, as the read cache's readers do: rows are read only.
 */
export function gatheredRowsByKeys(db: Db, table: string, column: string, values: readonly string[]): Promise<Row[]> {
  return new Promise((resolve, reject) => gatherThisTurn<Waiter>(db, `rowsByKeys:${table}.${column}`, { values, resolve, reject }, (waiters) => send(db, table, column, waiters)));
}

async function send(db: Db, table: string, column: string, waiters: Waiter[]): Promise<void> {
  if (waiters.length === 1) return alone(db, table, column, waiters[0]!);
  const values = [...new Set(waiters.flatMap((waiter) => waiter.values))];
  let rows: Row[];
  try {
    rows = (await db.executeQuery<Row>(CompiledQuery.raw(`select * from "${table}" where "${column}" = any($1)`, [values]))).rows;
  } catch {
    await Promise.all(waiters.map((waiter) => alone(db, table, column, waiter)));
    return;
  }
  const byValue = new Map<unknown, Row>();
  for (const row of rows) byValue.set(row[column], row);
  for (const waiter of waiters) waiter.resolve(rowsOf(waiter.values, byValue));
}

/** The rows of these keys, each once, in the order of the keys. */
function rowsOf(values: readonly string[], byValue: Map<unknown, Row>): Row[] {
  const rows: Row[] = [];
  for (const value of new Set(values)) {
    const row = byValue.get(value);
    if (row) rows.push(row);
  }
  return rows;
}

/** One read sent alone: the only one of its turn, or one of a gathering whose statement failed. */
async function alone(db: Db, table: string, column: string, waiter: Waiter): Promise<void> {
  const query =
    waiter.values.length === 1
      ? CompiledQuery.raw(`select * from "${table}" where "${column}" = $1`, [waiter.values[0]])
      : CompiledQuery.raw(`select * from "${table}" where "${column}" = any($1)`, [[...waiter.values]]);
  await db.executeQuery<Row>(query).then((result) => waiter.resolve(result.rows), waiter.reject);
}
