import { PostgresAdapter } from 'kysely';
import type { Db } from './database.js';

/**
 * The longest items wait for a send of their kind that is still out; then they go as if it
 * had been answered. A round trip under load takes well under this, so the wait gathers;
 * a statement that is slow (a busy backend) or never answered (a connection lost) delays
 * the others by no more than this, as when each turn sent its own.
 */
const HOLD_LIMIT_MS = 5;

/** The items of one gathering waiting to be sent, and the send still out, if any. */
interface Gathering {
  items: unknown[];
  scheduled: boolean;
  /** The send out (a count of sends), 0 when none is. */
  out: number;
  sends: number;
  outSince: number;
  limit: NodeJS.Timeout | undefined;
}

/** By pool (the Kysely instance), then by what the statement is. */
const gatherings = new WeakMap<Db, Map<string, Gathering>>();

/**
 * Whether statements on `db` are gathered across requests: PostgreSQL, outside a
 * transaction (a transaction's statements are its own). The embedded database answers
 * a statement in the call that sends it, so there is no round trip to share.
 */
export function gathers(db: Db): boolean {
  return !db.isTransaction && db.getExecutor().adapter.constructor === PostgresAdapter;
}

/**
 * Adds `item` to the gathering `what` of `db`: the items that requests add while the event
 * loop handles one round of I/O are handed to `send` together at its end (`setImmediate`),
 * in the order they came. While a send of `what` is out (its promise unsettled), the items
 * that come wait for it and go together in the next one, at the end of the turn it settles
 * in (or after HOLD_LIMIT_MS): under load one statement of a kind is in flight at a time,
 * carrying all that came during the round trip before it, as a group commit carries the
 * units that came during the flush before it. A send is one statement's round trip (and
 * its retries); its promise settles whether the statement succeeded or not (its callers
 * hear their answers from `send`).
 */
export function gatherThisTurn<Item>(db: Db, what: string, item: Item, send: (items: Item[]) => Promise<unknown>): void {
  let own = gatherings.get(db);
  if (!own) gatherings.set(db, (own = new Map()));
  let gathering = own.get(what);
  if (!gathering) own.set(what, (gathering = { items: [], scheduled: false, out: 0, sends: 0, outSince: 0, limit: undefined }));
  gathering.items.push(item);
  const sendItems = send as (items: unknown[]) => Promise<unknown>;
  if (gathering.out && !gathering.limit) {
    const held = gathering;
    const out = held.out;
    held.limit = setTimeout(() => answered(held, out, sendItems), Math.max(0, held.outSince + HOLD_LIMIT_MS - performance.now()));
    held.limit.unref();
  }
  schedule(gathering, sendItems);
}

function schedule(gathering: Gathering, send: (items: unknown[]) => Promise<unknown>): void {
  if (gathering.scheduled || gathering.out) return;
  gathering.scheduled = true;
  setImmediate(() => {
    gathering.scheduled = false;
    const items = gathering.items;
    gathering.items = [];
    const out = (gathering.out = ++gathering.sends);
    gathering.outSince = performance.now();
    const settled = () => answered(gathering, out, send);
    send(items).then(settled, settled);
  });
}

/** The send `out` was answered (or held its kind too long): what waits for it goes next. */
function answered(gathering: Gathering, out: number, send: (items: unknown[]) => Promise<unknown>): void {
  if (gathering.out !== out) return;
  gathering.out = 0;
  clearTimeout(gathering.limit);
  gathering.limit = undefined;
  if (gathering.items.length) schedule(gathering, send);
}
