// Migration 028: six indexes that no statement reads go (the transfers' lookups by patient,
// prescriber and status that were never written, and prescriptions by prescriber); the
// indexes the transfers' reads use stay and still serve them.
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { whereOwned } from '../src/db/ownership.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { UNREAD_INDEXES } from '../src/db/migrations/028-unread-indexes.js';
import { createdIndexes, databaseAt, queryPlan } from './support/migration-fixtures.js';
import type { TestDatabase } from './support/test-database.js';

const TABLES = ['direct_transfers', 'transfer_requests', 'transfer_medications', 'prescriptions'] as const;

/** Every index the migrations made on the four tables, by table. */
async function indexesOf(database: TestDatabase): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) out[table] = await createdIndexes(database, table);
  return out;
}

let database: TestDatabase;
beforeEach(async () => {
  database = await databaseAt('027-sandbox-steps-subject-index');
});
afterEach(async () => database?.dispose());

describe('migration 028 (indexes no statement reads)', () => {
  it('drops the six and keeps the others', async () => {
    const before = await indexesOf(database);
    expect(Object.values(before).flat()).toEqual(expect.arrayContaining([...UNREAD_INDEXES]));
    await migrateToLatest(database.handle);
    expect(await indexesOf(database)).toEqual({
      direct_transfers: [],
      transfer_requests: ['transfer_requests_list', 'transfer_requests_patient'],
      transfer_medications: ['transfer_medications_order'],
      prescriptions: ['prescriptions_patient'],
    });
  });

  it('still plans the transfers\u2019 reads on the indexes that stay', async () => {
    await migrateToLatest(database.handle);
    const db = database.handle.db as Kysely<any>;
    const page = db.selectFrom('transfer_requests').selectAll().where(whereOwned({ customerId: 'cus_a', environment: 'sandbox' })).orderBy('created_at').orderBy('token').limit(20);
    expect(await queryPlan(database, page.compile())).toMatch(/transfer_requests_list/);
    const medications = db.selectFrom('transfer_medications').selectAll().where('transfer_token', 'in', ['tr_1', 'tr_2']).orderBy('transfer_token').orderBy('position');
    expect(await queryPlan(database, medications.compile())).toMatch(/transfer_medications_order/);
  });
});
