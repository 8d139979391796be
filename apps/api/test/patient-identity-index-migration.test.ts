// Migration 024 on a database written before it: the patients' two identity indexes become
// one unique index on the owner, the search columns and the identity key; the rows stay, two
// creates of one person still conflict, and the searches by name use the index.
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const NOW = '2024-01-01T00:00:00.000Z';

function patient(token: string, customer: string, matchKey: string, gender = 'female') {
  return {
    token, customer_id: customer, environment: 'sandbox', match_key: matchKey,
    first_name: 'Jane', last_name: 'Doe', first_name_norm: 'jane', last_name_norm: 'doe',
    dob: '19800131', gender, species: 'Human', created_at: NOW, updated_at: NOW,
  };
}

/** The indexes of `patients` but its primary key's: name, whether unique, and columns in order. */
async function patientIndexes(database: TestDatabase): Promise<{ name: string; unique: boolean; columns: string[] }[]> {
  const db = database.handle.db as Kysely<any>;
  if (database.handle.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string; unique: number; origin: string }>`pragma index_list('patients')`.execute(db);
    const found = [];
    for (const index of rows.filter((r) => r.origin === 'c')) {
      const info = await sql<{ seqno: number; name: string }>`select * from pragma_index_info(${index.name})`.execute(db);
      found.push({ name: index.name, unique: index.unique === 1, columns: [...info.rows].sort((a, b) => a.seqno - b.seqno).map((c) => c.name) });
    }
    return found.sort((a, b) => a.name.localeCompare(b.name));
  }
  const { rows } = await sql<{ name: string; unique: boolean; columns: string }>`
    select i.relname as name, x.indisunique as unique,
           array_to_string(array(select a.attname from unnest(x.indkey) with ordinality k(attnum, n)
                 join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum order by k.n), ',') as columns
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
     where t.relname = 'patients' and t.relnamespace = to_regnamespace(current_schema()) and not x.indisprimary
     order by i.relname`.execute(db);
  return rows.map((r) => ({ name: r.name, unique: r.unique, columns: r.columns.split(',') }));
}

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
  await migrateTo(database.handle, '023-sandbox-simulations');
  const db = database.handle.db as Kysely<any>;
  await db.insertInto('customers').values([{ id: 'cus_a', name: 'A', created_at: NOW }, { id: 'cus_b', name: 'B', created_at: NOW }]).execute();
  // Two people of one name and date of birth (their genders differ, so their identity keys do), and one of another customer.
  await db.insertInto('patients').values([patient('pat_1', 'cus_a', 'key_f'), patient('pat_2', 'cus_a', 'key_m', 'male'), patient('pat_3', 'cus_b', 'key_f')]).execute();
});
afterEach(async () => database?.dispose());

describe('migration 024 (one identity index of patients)', () => {
  it('replaces the identity and search indexes with one unique index, keeping every row', async () => {
    expect((await patientIndexes(database)).map((i) => i.name)).toEqual(['patients_find', 'patients_identity']);
    await migrateToLatest(database.handle);
    expect(await patientIndexes(database)).toEqual([
      { name: 'patients_identity', unique: true, columns: ['customer_id', 'environment', 'last_name_norm', 'first_name_norm', 'dob', 'match_key'] },
    ]);
    const rows = await database.handle.db.selectFrom('patients').select('token').orderBy('token').execute();
    expect(rows.map((r) => r.token)).toEqual(['pat_1', 'pat_2', 'pat_3']);
  });

  it('still refuses a second row of one identity for one customer, and takes another identity', async () => {
    await migrateToLatest(database.handle);
    const db = database.handle.db as Kysely<any>;
    await expect(db.insertInto('patients').values(patient('pat_4', 'cus_a', 'key_f')).execute()).rejects.toThrow(/unique|duplicate/i);
    await db.insertInto('patients').values(patient('pat_5', 'cus_a', 'key_x', 'unknown')).execute();
    const { count } = await db.selectFrom('patients').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    expect(Number(count)).toBe(4);
  });

  it('serves the search by name and date of birth (the embedded database plans it on the index)', async () => {
    await migrateToLatest(database.handle);
    if (database.handle.dialect !== 'sqlite') return;
    const plan = await sql<{ detail: string }>`explain query plan select token from patients
      where customer_id = 'cus_a' and environment = 'sandbox' and last_name_norm = 'doe' and first_name_norm = 'jane' and dob = '19800131'
      order by created_at, token limit 1`.execute(database.handle.db);
    expect(plan.rows.map((r) => r.detail).join('\n')).toMatch(/USING INDEX patients_identity/);
  });
});
