import type { Kysely } from 'kysely';
import type { Db } from './database.js';
import { shapeName } from './row-shapes.js';
import { reuseCompiled } from './transactor.js';
import { gatherThisTurn, gathers } from './turn-gathering.js';

type Row = Record<string, unknown>;

interface Waiter {
  row: Row;
  resolve: (inserted: boolean) => void;
  reject: (error: unknown) => void;
}

/** PostgreSQL takes at most 65,535 parameters a statement: a gathering is sent in parts of at most this many values. */
const MAX_PARAMETERS = 65_535;

/**
 * Inserts `row` into `table` unless it conflicts with a stored row on the unique columns
 * `conflict` (`on conflict do nothing`); answers whether it was inserted. `key` is a
 * column whose value tells the rows apart (the record's token).
 *
 * On PostgreSQL outside a transaction (`gathers`), the rows of one table and shape that
 * requests insert in one turn of the event loop (or while the last such statement was out:
 * turn-gathering.ts) are sent as one statement: one round trip
 * and one commit for them all, as durable as one each (each caller hears back after that
 * commit). Two rows of the gathering that conflict with each other: the first is inserted.
 * When the gathered statement fails (a row PostgreSQL refuses), each row is sent alone, so
 * only that row's caller gets the error.
 *
 * A statement inserting a row waits for another in flight that inserts a row of the same
 * `conflict` values, until that one commits; two statements waiting so for each other in
 * opposite orders would deadlock (PostgreSQL would end one after a second). So a gathering's
 * rows go in the order of their `conflict` values: any two statements meet their common
 * rows in the same order.
 */
export function insertUnlessConflict(db: Db, table: string, conflict: readonly string[], key: string, row: Row): Promise<boolean> {
  if (!gathers(db)) return insertRows(db, table, conflict, key, [row]).then((inserted) => inserted.size === 1);
  return new Promise((resolve, reject) =>
    gatherThisTurn<Waiter>(db, `insertUnlessConflict:${shapeName(table, Object.keys(row))}`, { row, resolve, reject }, (waiters) => {
      const ordered = inConflictOrder(waiters, conflict);
      const rowsPerStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Object.keys(row).length));
      const sent: Promise<void>[] = [];
      for (let i = 0; i < ordered.length; i += rowsPerStatement) sent.push(send(db, table, conflict, key, ordered.slice(i, i + rowsPerStatement)));
      return Promise.all(sent);
    }),
  );
}

/** The waiters ordered by their rows' `conflict` values (stable: equal values keep the order they came in). */
function inConflictOrder(waiters: Waiter[], conflict: readonly string[]): Waiter[] {
  if (waiters.length === 1) return waiters;
  const keyed = waiters.map((waiter) => ({ waiter, value: JSON.stringify(conflict.map((column) => waiter.row[column])) }));
  return keyed.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)).map(({ waiter }) => waiter);
}

async function send(db: Db, table: string, conflict: readonly string[], key: string, waiters: Waiter[]): Promise<void> {
  let inserted: Set<unknown>;
  try {
    inserted = await insertRows(db, table, conflict, key, waiters.map((waiter) => waiter.row));
  } catch (error) {
    if (waiters.length === 1) waiters[0]!.reject(error);
    else await Promise.all(waiters.map((waiter) => send(db, table, conflict, key, [waiter])));
    return;
  }
  for (const waiter of waiters) waiter.resolve(inserted.has(waiter.row[key]));
}

/** One statement inserting `rows` (of one shape), skipping those in conflict: the keys of the rows inserted. */
async function insertRows(db: Db, table: string, conflict: readonly string[], key: string, rows: Row[]): Promise<Set<unknown>> {
  const columns = Object.keys(rows[0]!);
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of columns) parameters.push(row[column]);
  const query = reuseCompiled(db, `insertUnlessConflict:${rows.length}:${shapeName(table, columns)}`, parameters, () =>
    (db as unknown as Kysely<Record<string, Row>>)
      .insertInto(table)
      .values(rows)
      .onConflict((oc) => oc.columns(conflict as string[]).doNothing())
      .returning(key),
  );
  const result = await db.executeQuery<Row>(query);
  return new Set(result.rows.map((inserted) => inserted[key]));
}
