import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitTransactor } from '../src/db/group-commit.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

// Group commit is the embedded database's transactor; PostgreSQL runs one transaction per unit.
const embedded = process.env.TEST_DATABASE !== 'postgres';

describe.runIf(embedded)('group commit on the embedded database', () => {
  let database: TestDatabase;
  let transactor: GroupCommitTransactor;
  beforeAll(async () => {
    database = await createTestDatabase();
    transactor = new GroupCommitTransactor(database.handle.db);
  });
  afterAll(async () => database?.dispose());

  const customer = (id: string) => ({ id, name: id, tenant_id: id, created_at: new Date().toISOString() });

  it('commits concurrent units together, and a failing unit is rolled back alone', async () => {
    const results = await Promise.allSettled([
      transactor.run((trx) => trx.insertInto('customers').values(customer('a')).execute()),
      transactor.run(async (trx) => {
        await trx.insertInto('customers').values(customer('b')).execute();
        throw new Error('business rule refused b');
      }),
      transactor.run((trx) => trx.insertInto('customers').values(customer('c')).execute()),
      // a constraint violation inside a unit is that unit's failure only
      transactor.run((trx) => trx.insertInto('customers').values(customer('a')).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    const ids = (await database.handle.db.selectFrom('customers').select('id').orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual(['a', 'c']);
  });

  it('answers each unit its own result, across more units than one batch holds', async () => {
    const small = new GroupCommitTransactor(database.handle.db, 7);
    const values = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        small.run(async (trx) => {
          await trx.insertInto('customers').values(customer(`bulk${i}`)).execute();
          return i * 2;
        }),
      ),
    );
    expect(values).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
    const count = await database.handle.db.selectFrom('customers').select((eb) => eb.fn.countAll().as('n')).where('id', 'like', 'bulk%').executeTakeFirst();
    expect(Number(count?.n)).toBe(40);
  });
  it("keeps a statement's undo journal in memory, and a statement that fails half-way inside a batch changes nothing", async () => {
    // temp_store = MEMORY (2): the journal that undoes one statement inside a unit's savepoint
    // is not a temporary file made and deleted for each such statement.
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(database.handle.db);
    expect(rows[0]!.temp_store).toBe(2);
    const results = await Promise.allSettled([
      transactor.run((trx) => trx.insertInto('customers').values([customer('m1'), customer('m2')]).execute()),
      // Its third row is refused after two were written: the statement is undone whole.
      transactor.run((trx) => trx.insertInto('customers').values([customer('m3'), customer('m4'), customer('m1')]).execute()),
      transactor.run((trx) => trx.insertInto('customers').values([customer('m5'), customer('m6')]).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const ids = (await database.handle.db.selectFrom('customers').select('id').where('id', 'like', 'm%').orderBy('id').execute()).map((r) => r.id);
    expect(ids).toEqual(['m1', 'm2', 'm5', 'm6']);
  });
});
