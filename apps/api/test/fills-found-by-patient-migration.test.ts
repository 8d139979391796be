// Migration 025 on a database written before it: the index of fills by prescription goes, the
// fills stay, and the two lookups that used it (an auto-refill's latest fill request of a
// prescription, a cancellation's other fills of it) find the same fills among the requests of
// the prescription's patient, planned on that patient's index.
import { type CompiledQuery, type Kysely, type KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import type { Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { FillCancellationRepository } from '../src/fill-requests/fill-cancellation-repository.js';
import { FillRequestRepository, type FillRequestMedicationRow } from '../src/fill-requests/fill-request-repository.js';
import { createdIndexes, databaseAt, dayOf as at, queryPlan, storedFillRequest, storedPatient } from './support/migration-fixtures.js';
import type { TestDatabase } from './support/test-database.js';

const ACME: Owner = { customerId: 'cus_a', environment: 'sandbox' };

function prescription(token: string, patient: string) {
  return {
    token, customer_id: 'cus_a', environment: 'sandbox', patient_token: patient, rx_number: token, status: 'active', is_refill: 0,
    medication_name: 'Atorvastatin 20 mg tablet', prescribed_quantity: 30, number_of_refills_allowed: 5, refills_remaining: 3,
    quantity_remaining: 90, date_filled_utc: at(1), last_filled_date: at(5), created_at: at(1),
  };
}

const request = (token: string, patient: string, day: number, status = 'pending') => storedFillRequest(token, patient, day, { status });

function fill(request: string, prescription: string, fillNumber: number, position = 0): FillRequestMedicationRow {
  return { fill_request_token: request, position, prescription_token: prescription, fill_number: fillNumber, quantity: 30, days_supply: 30, refills_remaining: 3, quantity_remaining: 90 };
}

/** A Kysely that keeps the SQL of every query it runs, so a test can ask for its plan. */
function recording(db: Db): { db: Db; queries: CompiledQuery[] } {
  const queries: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      queries.push(db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { db: db.withPlugin(plugin), queries };
}

let database: TestDatabase;
beforeEach(async () => {
  database = await databaseAt('024-patient-identity-index');
  const db = database.handle.db as Kysely<any>;
  await db.insertInto('patients').values([storedPatient('pat_1'), storedPatient('pat_2')]).execute();
  await db.insertInto('prescriptions').values([prescription('rx_1', 'pat_1'), prescription('rx_2', 'pat_1'), prescription('rx_3', 'pat_2')]).execute();
  // pat_1: rx_1 filled on days 1, 3 and 5 (day 5 canceled as a whole), rx_2 on day 4 and, with rx_1, on day 3; pat_2: rx_3 on day 6.
  await db.insertInto('fill_requests').values([
    request('fr_1', 'pat_1', 1), request('fr_3', 'pat_1', 3), request('fr_4', 'pat_1', 4), request('fr_5', 'pat_1', 5, 'canceled'), request('fr_6', 'pat_2', 6),
  ]).execute();
  await db.insertInto('fill_request_medications').values([
    fill('fr_1', 'rx_1', 0), fill('fr_3', 'rx_1', 1), fill('fr_3', 'rx_2', 0, 1), fill('fr_4', 'rx_2', 1), fill('fr_5', 'rx_1', 2), fill('fr_6', 'rx_3', 0),
  ]).execute();
});
afterEach(async () => database?.dispose());

describe('migration 025 (fills found through their patient)', () => {
  it('drops the index of fills by prescription, keeping every fill', async () => {
    expect(await createdIndexes(database, 'fill_request_medications')).toEqual(['fill_request_medications_prescription']);
    await migrateToLatest(database.handle);
    expect(await createdIndexes(database, 'fill_request_medications')).toEqual([]);
    const rows = await database.handle.db.selectFrom('fill_request_medications').select(['fill_request_token', 'prescription_token']).execute();
    expect(rows).toHaveLength(6);
  });

  it("finds a prescription's latest fill request among its patient's, planned on the patient's index", async () => {
    await migrateToLatest(database.handle);
    const { db, queries } = recording(database.handle.db);
    const requests = new FillRequestRepository(db);
    expect((await requests.latestForPrescription(ACME, { token: 'rx_1', patient_token: 'pat_1' }))?.token).toBe('fr_5');
    expect((await requests.latestForPrescription(ACME, { token: 'rx_2', patient_token: 'pat_1' }))?.token).toBe('fr_4');
    expect((await requests.latestForPrescription(ACME, { token: 'rx_3', patient_token: 'pat_2' }))?.token).toBe('fr_6');
    expect(await requests.latestForPrescription(ACME, { token: 'rx_1', patient_token: 'pat_2' })).toBeUndefined();
    // Another customer's, or the other environment's, caller finds nothing.
    expect(await requests.latestForPrescription({ customerId: 'cus_b', environment: 'sandbox' }, { token: 'rx_1', patient_token: 'pat_1' })).toBeUndefined();
    expect(await requests.latestForPrescription({ customerId: 'cus_a', environment: 'production' }, { token: 'rx_1', patient_token: 'pat_1' })).toBeUndefined();
    if (database.handle.dialect !== 'sqlite') return;
    expect(await queryPlan(database, queries[0]!)).toMatch(/SEARCH fill_requests USING INDEX fill_requests_patient \(patient_token=\?\)/);
  });

  it("gives a canceled first fill's place to the prescription's earliest standing fill, found among its patient's requests", async () => {
    await migrateToLatest(database.handle);
    const { db, queries } = recording(database.handle.db);
    // fr_1's fill of rx_1 (number 0) is canceled: fr_3's (number 1) stands and becomes the first; fr_5 is canceled.
    await new FillCancellationRepository().giveBack(fill('fr_1', 'rx_1', 0), at(1), db);
    const fills = await database.handle.db.selectFrom('fill_request_medications').select(['fill_request_token', 'prescription_token', 'fill_number']).orderBy('fill_request_token').orderBy('position').execute();
    expect(fills).toEqual([
      { fill_request_token: 'fr_1', prescription_token: 'rx_1', fill_number: 0 },
      { fill_request_token: 'fr_3', prescription_token: 'rx_1', fill_number: 0 },
      { fill_request_token: 'fr_3', prescription_token: 'rx_2', fill_number: 0 },
      { fill_request_token: 'fr_4', prescription_token: 'rx_2', fill_number: 1 },
      { fill_request_token: 'fr_5', prescription_token: 'rx_1', fill_number: 2 },
      { fill_request_token: 'fr_6', prescription_token: 'rx_3', fill_number: 0 },
    ]);
    const rx = await database.handle.db.selectFrom('prescriptions').select(['date_filled_utc', 'refills_remaining', 'quantity_remaining']).where('token', '=', 'rx_1').executeTakeFirstOrThrow();
    // The quantity comes back, and the refill fr_3 had consumed (it is the first fill now).
    expect(rx).toEqual({ date_filled_utc: at(3), refills_remaining: 4, quantity_remaining: 120 });
    if (database.handle.dialect !== 'sqlite') return;
    const standing = queries.find((q) => /from "fill_requests" as "r"/.test(q.sql));
    expect(await queryPlan(database, standing!)).toMatch(/SEARCH r USING INDEX fill_requests_patient \(patient_token=\?\)/);
  });
});
