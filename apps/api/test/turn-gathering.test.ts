import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../src/db/database.js';
import { gatherThisTurn } from '../src/db/turn-gathering.js';

/**
 * How gathered statements go out (db/turn-gathering.ts): what requests ask for in one turn of
 * the event loop goes in one send; while a send of one kind is out, what comes waits for it
 * and goes together in the next. Sends here are promises the test settles itself, and the
 * clock of the hold limit is the test's (turns of the event loop stay real), so each case is
 * decided by the order of events, not by how fast a database or this machine is.
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});
const nextTurn = () => new Promise<void>((done) => setImmediate(done));

/** A pool to gather on, and the sends it made: their items, and a way to settle each. */
function pool() {
  const db = {} as Db;
  const sends: { items: string[]; settle: (ok: boolean) => void }[] = [];
  const send = (items: string[]) =>
    new Promise<void>((resolve, reject) => sends.push({ items, settle: (ok) => (ok ? resolve() : reject(new Error('refused'))) }));
  const ask = (what: string, item: string) => gatherThisTurn(db, what, item, send);
  /** The items of each send so far, in order. */
  const sent = () => sends.map((s) => s.items);
  return { sends, ask, sent };
}

/** A pool whose send of 'a' is out, with 'b' of the same kind asked after it and waiting. */
async function oneOutOneWaiting(what: string) {
  const gathering = pool();
  gathering.ask(what, 'a');
  await nextTurn();
  gathering.ask(what, 'b');
  await nextTurn();
  return gathering;
}

describe('gathered statements', () => {
  it('sends what one turn asked for together, at the end of that turn, in the order it came', async () => {
    const { ask, sent } = pool();
    ask('reads', 'a');
    ask('reads', 'b');
    ask('reads', 'c');
    expect(sent()).toEqual([]);
    await nextTurn();
    expect(sent()).toEqual([['a', 'b', 'c']]);
  });

  it('holds what comes while a send of its kind is out, and sends it all together once that one is answered', async () => {
    const { sends, ask, sent } = pool();
    ask('reads', 'a');
    await nextTurn();
    // Three more turns, each asking once, while the first send is out: nothing more goes.
    for (const item of ['b', 'c', 'd']) {
      ask('reads', item);
      await nextTurn();
    }
    expect(sent()).toEqual([['a']]);
    sends[0]!.settle(true);
    await nextTurn();
    await nextTurn();
    expect(sent()).toEqual([['a'], ['b', 'c', 'd']]);
    // Once that one is answered too, and nothing waits, the next ask goes at the end of its own turn.
    sends[1]!.settle(true);
    await nextTurn();
    ask('reads', 'e');
    await nextTurn();
    expect(sent()).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
  });

  it('sends what waited after a send that failed as well', async () => {
    const { sends, sent } = await oneOutOneWaiting('inserts');
    sends[0]!.settle(false);
    await nextTurn();
    await nextTurn();
    expect(sent()).toEqual([['a'], ['b']]);
  });

  it('does not hold one kind for another, nor one pool for another', async () => {
    const first = pool();
    const second = pool();
    first.ask('reads of patients', 'a');
    await nextTurn();
    first.ask('reads of prescriptions', 'b');
    second.ask('reads of patients', 'c');
    await nextTurn();
    expect(first.sent()).toEqual([['a'], ['b']]);
    expect(second.sent()).toEqual([['c']]);
  });
});

describe('a send that is slow or never answered', () => {
  it('holds what comes after it for a few milliseconds only', async () => {
    const { sends, ask, sent } = await oneOutOneWaiting('reads');
    expect(sent()).toEqual([['a']]);
    vi.advanceTimersByTime(4);
    await nextTurn();
    expect(sent()).toEqual([['a']]);
    vi.advanceTimersByTime(1);
    await nextTurn();
    expect(sent()).toEqual([['a'], ['b']]);
    // The first one answered late changes nothing; once 'b' is answered, the next ask goes at the end of its turn.
    sends[0]!.settle(true);
    sends[1]!.settle(true);
    await nextTurn();
    ask('reads', 'c');
    await nextTurn();
    expect(sent()).toEqual([['a'], ['b'], ['c']]);
  });
});
