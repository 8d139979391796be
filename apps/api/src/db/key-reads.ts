import { CompiledQuery } from 'kysely';
import type { Db } from './database.js';
import { gatherThisTurn } from './turn-gathering.js';

type Row = Record<string, unknown>;

interface Waiter {
  value: string;
  resolve: (row: Row | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * A point read by key on PostgreSQL outside a transaction (`gathers`), gathered: the reads
 * of one table and column that requests ask for in one turn of the event loop are sent as
 * one statement, `where column = any($1)`: one round trip, one `writev`, one statement for
 * PostgreSQL to run, instead of one each. A read alone is sent as `where column = $1`. Each
 * read gets the row whose key equals its value (keys are text, which PostgreSQL compares
 * exactly too). When the gathered statement fails (a value PostgreSQL refuses), each read
 * is sent alone, so each gets its own answer.
 *
 * Reads of one key share its row, as the read cache's readers do: rows are read only.
 */
export function gatheredRowByKey(db: Db, table: string, column: string, value: string): Promise<Row | undefined> {
  return new Promise((resolve, reject) => gatherThisTurn<Waiter>(db, `rowByKey:${table}.${column}`, { value, resolve, reject }, (waiters) => void send(db, table, column, waiters)));
}

async function send(db: Db, table: string, column: string, waiters: Waiter[]): Promise<void> {
  if (waiters.length === 1) return alone(db, table, column, waiters[0]!);
  const values = [...new Set(waiters.map((waiter) => waiter.value))];
  let rows: Row[];
  try {
    rows = (await db.executeQuery<Row>(CompiledQuery.raw(`select * from "${table}" where "${column}" = any($1)`, [values]))).rows;
  } catch {
    await Promise.all(waiters.map((waiter) => alone(db, table, column, waiter)));
    return;
  }
  const byValue = new Map<unknown, Row>();
  for (const row of rows) byValue.set(row[column], row);
  for (const waiter of waiters) waiter.resolve(byValue.get(waiter.value));
}

/** One read sent alone: the only one of its turn, or one of a gathering whose statement failed. */
async function alone(db: Db, table: string, column: string, waiter: Waiter): Promise<void> {
  const query = CompiledQuery.raw(`select * from "${table}" where "${column}" = $1`, [waiter.value]);
  await db.executeQuery<Row>(query).then((result) => waiter.resolve(result.rows[0]), waiter.reject);
}
