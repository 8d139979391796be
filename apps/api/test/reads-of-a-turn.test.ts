import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNow } from '../src/db/database.js';
import { rowByKey } from '../src/db/transactor.js';
import { probesTable, type ProbesTable } from './support/probes-table.js';

// The embedded database's reads of one turn of the event loop share one read transaction
// (database.ts, StatementCache); PostgreSQL's connections are not touched.
const embedded = process.env.TEST_DATABASE !== 'postgres';

describe.runIf(embedded)("the embedded database's reads of one turn", () => {
  /** The probes table, and another connection to its file, as another process (the admin commands) has. */
  let probes: ProbesTable;
  beforeEach(async () => void (probes = await probesTable()));
  afterEach(async () => probes?.dispose());

  const db = () => probes.database.handle.db as never as Kysely<any>;
  const readA = async (on: Kysely<any> = db()) => (await on.selectFrom('probes').select('a').where('id', '=', 'p1').executeTakeFirst())?.a;
  const otherSets = (a: string) => sql`update probes set a = ${a} where id = 'p1'`.execute(probes.other.db);
  const nextTurn = () => new Promise((done) => setImmediate(done));

  it("see one snapshot: another process's commit shows from the next turn on", async () => {
    await nextTurn();
    expect(await readA()).toBe('x');
    await otherSets('y');
    expect(await readA()).toBe('x');
    // No transaction of a caller's is open: a unit of work may begin one.
    expect(probes.database.handle.embedded!.inTransaction).toBe(false);
    await nextTurn();
    expect(await readA()).toBe('y');
  });

  it("end before this process writes, so a read sees this process's writes and every commit before them", async () => {
    await nextTurn();
    expect(await readA()).toBe('x');
    await sql`insert into probes (id, a) values ('p2', 'own')`.execute(probes.database.handle.db);
    await otherSets('y');
    expect(await db().selectFrom('probes').select('id').orderBy('id').execute()).toEqual([{ id: 'p1' }, { id: 'p2' }]);
    // That read began a new snapshot, after the other process's commit.
    expect(await readA()).toBe('y');
  });

  it('end before a transaction begins, which then reads current data and commits', async () => {
    await nextTurn();
    expect(await readA()).toBe('x');
    await otherSets('y');
    const seen = await db()
      .transaction()
      .execute(async (trx) => {
        const a = await readA(trx);
        await trx.updateTable('probes').set({ a: `${a}!` }).where('id', '=', 'p1').execute();
        return a;
      });
    expect(seen).toBe('y');
    expect(await readA(probes.other.db as never)).toBe('y!');
  });

  it('end before a statement read row by row, whose rows may be read after the turn', async () => {
    await nextTurn();
    expect(await readA()).toBe('x');
    await otherSets('y');
    const streamed: unknown[] = [];
    for await (const row of db().selectFrom('probes').select('a').stream()) {
      streamed.push(row.a);
      await nextTurn();
    }
    expect(streamed).toEqual(['y']);
    // The stream held no transaction open: another process still writes.
    await otherSets('z');
    await nextTurn();
    expect(await readA()).toBe('z');
  });

  it('hold no lock past their turn: another process checkpoints the whole log', async () => {
    await otherSets('y');
    expect(await readA()).toBe('y');
    await nextTurn();
    const { rows } = await sql<{ busy: number; log: number; checkpointed: number }>`pragma wal_checkpoint(truncate)`.execute(probes.other.db);
    expect(rows[0]!.busy).toBe(0);
  });
});

describe.runIf(embedded)("the embedded database's reads by key, run at once (readNow)", () => {
  let probes: ProbesTable;
  beforeEach(async () => void (probes = await probesTable()));
  afterEach(async () => probes?.dispose());

  const db = () => probes.database.handle.db;
  const byId = 'select "a" from "probes" where "id" = ?';
  const probeById = (id: string) => rowByKey(db(), 'probes' as never, 'id', id) as Promise<{ a: string } | undefined>;

  it("run on the database's own Kysely, and leave a transaction's to Kysely", async () => {
    expect(readNow(db(), byId, ['p1'])).toEqual([{ a: 'x' }]);
    expect(await probeById('p1')).toMatchObject({ id: 'p1', a: 'x' });
    expect(await probeById('nobody')).toBeUndefined();
    const inside = await db()
      .transaction()
      .execute(async (trx) => [readNow(trx, byId, ['p1']), await rowByKey(trx, 'probes' as never, 'id', 'p1')]);
    expect(inside).toEqual([undefined, { id: 'p1', a: 'x' }]);
    expect(readNow(probes.other.db, byId, ['p1'])).toEqual([{ a: 'x' }]);
  });

  it("never see a caller's writes before they commit: while its transaction is open they wait for it", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let inserted!: () => void;
    const wrote = new Promise<void>((resolve) => (inserted = resolve));
    const unit = db()
      .transaction()
      .execute(async (trx) => {
        await sql`insert into probes (id, a) values ('p2', 'not committed')`.execute(trx);
        inserted();
        await gate;
        throw new Error('rolled back');
      });
    await wrote;
    expect(readNow(db(), byId, ['p2'])).toBeUndefined();
    const read = probeById('p2');
    open();
    await expect(unit).rejects.toThrow('rolled back');
    expect(await read).toBeUndefined();
    // Once the transaction is over, they run at once again.
    expect(readNow(db(), byId, ['p2'])).toEqual([]);
  });
});
