import { PostgresAdapter } from 'kysely';
import type { Db } from './database.js';

/** By pool (the Kysely instance), then by what the statement is: the items waiting for this turn of the event loop to end. */
const turns = new WeakMap<Db, Map<string, unknown[]>>();

/**
 * Whether statements on `db` are gathered across requests: PostgreSQL, outside a
 * transaction (a transaction's statements are its own). The embedded database answers
 * a statement in the call that sends it, so there is no round trip to share.
 */
export function gathers(db: Db): boolean {
  return !db.isTransaction && db.getExecutor().adapter.constructor === PostgresAdapter;
}

/**
 * Adds `item` to the gathering `what` of `db` for this turn of the event loop: the items
 * that requests add while the loop handles one round of I/O are handed to `send` together
 * at its end (`setImmediate`), in the order they came.
 */
export function gatherThisTurn<Item>(db: Db, what: string, item: Item, send: (items: Item[]) => void): void {
  let gatherings = turns.get(db);
  if (!gatherings) turns.set(db, (gatherings = new Map()));
  const waiting = gatherings.get(what) as Item[] | undefined;
  if (waiting) {
    waiting.push(item);
    return;
  }
  const items = [item];
  gatherings.set(what, items);
  const own = gatherings;
  setImmediate(() => {
    own.delete(what);
    send(items);
  });
}
