import { expect } from 'vitest';
import type { UnitOfWork } from '../../src/events/unit-of-work.js';
import { eventProblems, eventsOf, type StoredEvent } from './event-schemas.js';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import { pharmacyEnv } from './lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './test-app.js';

export type StaffActions = ReturnType<typeof staffActions>;

/**
 * What staff do, as the admin commands do it: one lifecycle action in its own unit of work;
 * and the events a customer's actions recorded, each checked against its schema.
 */
export function staffActions(t: TestApp, customerId: string) {
  const db = () => t.database.handle.db;
  return {
    act: <T>(action: (uow: UnitOfWork) => Promise<T>): Promise<T> => t.app.services.units.run('test', action),
    eventCount: async () => (await eventsOf(db(), customerId)).length,
    /** The events recorded since `before` events existed, each checked against its schema. */
    async newEvents(before: number): Promise<StoredEvent[]> {
      const events = (await eventsOf(db(), customerId)).slice(before);
      for (const e of events) expect(eventProblems(e), `${e.callback_type} ${e.status ?? ''}`).toEqual([]);
      return events;
    },
  };
}

/** An app whose pharmacy the lifecycle tests name, with a customer whose records staff act on. */
export async function startStaffApp(): Promise<{ t: TestApp; acme: NewCustomer; staff: StaffActions }> {
  const t = await startTestApp({ ...pharmacyEnv, PHARMACY_LOCATION: 'Denver, CO' });
  const acme = await t.customer('Acme');
  return { t, acme, staff: staffActions(t, acme.customer_id) };
}
