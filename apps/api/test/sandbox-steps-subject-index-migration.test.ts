// Migration 027 on a database written before it: `sandbox_steps_subject`, which no statement
// used, goes; the steps stay, and the simulated pharmacy still finds the due ones through
// `sandbox_steps_due`.
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { createdIndexes, databaseAt, dayOf, queryPlan } from './support/migration-fixtures.js';
import type { TestDatabase } from './support/test-database.js';

/** A step of `cus_a`'s fill request `subject`, due on `day`. */
function step(id: string, subject: string, day: number, state = 'scheduled') {
  return {
    id, customer_id: 'cus_a', environment: 'sandbox', subject: 'fill_request', subject_token: subject, step: 0, run_at: dayOf(day),
    locked_until: null, state, last_error: null, origin_request_id: null, simulation: null, created_at: dayOf(1), updated_at: dayOf(1),
  };
}

/** The due steps as the simulated pharmacy's claim reads them (db/job-claims.ts), earliest first. */
function dueSteps(db: Kysely<any>, now: string) {
  return db
    .selectFrom('sandbox_steps')
    .select('id')
    .where('state', 'in', ['scheduled'])
    .where('run_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('run_at')
    .limit(10);
}

let database: TestDatabase;
beforeEach(async () => {
  database = await databaseAt('026-fill-requests-metadata-index');
  await (database.handle.db as Kysely<any>)
    .insertInto('sandbox_steps')
    .values([step('sbx_1', 'fr_1', 3), step('sbx_2', 'fr_2', 1), step('sbx_3', 'fr_3', 9), step('sbx_4', 'fr_4', 2, 'done')])
    .execute();
});
afterEach(async () => database?.dispose());

describe('migration 027 (no index of sandbox steps by subject)', () => {
  it('drops the index and keeps every step', async () => {
    expect(await createdIndexes(database, 'sandbox_steps')).toEqual(['sandbox_steps_due', 'sandbox_steps_subject']);
    await migrateToLatest(database.handle);
    expect(await createdIndexes(database, 'sandbox_steps')).toEqual(['sandbox_steps_due']);
    const { count } = await database.handle.db.selectFrom('sandbox_steps').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    expect(Number(count)).toBe(4);
  });

  it('finds the due steps, earliest first, through the index of due steps', async () => {
    await migrateToLatest(database.handle);
    const db = database.handle.db as Kysely<any>;
    expect((await dueSteps(db, dayOf(5)).execute()).map((r) => r.id)).toEqual(['sbx_2', 'sbx_1']);
    expect(await queryPlan(database, dueSteps(db, dayOf(5)).compile())).toMatch(/sandbox_steps_due/);
  });
});
