import { expect } from 'vitest';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import { eventProblems, eventsOf, waitFor, type StoredEvent } from './event-schemas.js';
import { address, createPatient } from './fixtures.js';
import { directTransferBody, pharmacyEnv, transferBody } from './lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * The sandbox's simulated pharmacy (SANDBOX_STEP_DELAY_MS=0): sandbox requests go through
 * their lifecycles by themselves, with the events production staff actions record.
 */
export async function startSimulatedSandbox(): Promise<{ t: TestApp; acme: NewCustomer }> {
  const t = await startTestApp({ ...pharmacyEnv, SANDBOX_STEP_DELAY_MS: '0' });
  const acme = await t.customer('Acme');
  return { t, acme };
}

/** Each event as `CALLBACK_TYPE:status[:shipment status]`. */
export const summary = (events: StoredEvent[]) => events.map((e) => `${e.callback_type}:${e.status ?? '-'}${e.details.status ? `:${e.details.status}` : ''}`);

/**
 * What the sandbox stories create, and the events they wait for, on the app and for the
 * customer (acme) that `suite` answers once the file's beforeAll has started them.
 */
export function sandboxSteps(suite: () => { t: TestApp; acme: NewCustomer }) {
  const db = () => suite().t.database.handle.db;
  const sandboxKey = () => suite().acme.sandbox_api_key;

  /** The events of one request (and the NOTIFY_RX of the given patient), each valid against its schema. */
  async function eventsFor(requestId: string, customerId = suite().acme.customer_id): Promise<StoredEvent[]> {
    const events = (await eventsOf(db(), customerId)).filter((e) => e.request_id === requestId);
    for (const e of events) expect(eventProblems(e), `${e.callback_type} ${e.status ?? ''}`).toEqual([]);
    return events;
  }

  /** Waits until the request's events include one matching `last`. */
  function waitForEvent(requestId: string, last: (e: StoredEvent) => boolean, what: string, customerId = suite().acme.customer_id): Promise<StoredEvent[]> {
    return waitFor(async () => {
      const events = await eventsFor(requestId, customerId);
      return events.some(last) ? events : undefined;
    }, 20_000, what);
  }

  async function notifyRxOf(patient: string, customerId = suite().acme.customer_id): Promise<StoredEvent[]> {
    const events = (await eventsOf(db(), customerId)).filter((e) => e.callback_type === 'NOTIFY_RX' && e.details.patient_token === patient);
    for (const e of events) expect(eventProblems(e)).toEqual([]);
    return events;
  }

  async function createTransfer(medications: string[] | undefined, extra: Record<string, unknown> = {}, key = sandboxKey()) {
    const patient = await createPatient(suite().t, key);
    const { data, response } = await suite().t.client(key).POST('/v1/transfer_request', { body: transferBody(patient, medications, extra) as never });
    expect(response.status).toBe(201);
    return { patient, token: data!.request_id };
  }

  async function createDirectTransfer(prescription: Record<string, unknown> = {}, key = sandboxKey()) {
    const patient = await createPatient(suite().t, key);
    const { data, response } = await suite().t.client(key).POST('/v1/direct_transfer', { body: directTransferBody(patient, prescription) as never });
    expect(response.status).toBe(201);
    return { patient, token: data!.request_id };
  }

  async function createFillRequest(patient: string, prescription: string, metadata?: string, key = sandboxKey()) {
    const { data, response } = await suite().t.client(key).POST('/v1/fill_request', {
      body: {
        patient_token: patient,
        patient_payment_type: 'cash',
        medications: [{ prescription_token: prescription }],
        ...address,
        patient_survey: {},
        ...(metadata ? { metadata } : {}),
      } as never,
    });
    expect(response.status).toBe(201);
    return data!.request_id;
  }

  return { db, sandboxKey, eventsFor, waitForEvent, notifyRxOf, createTransfer, createDirectTransfer, createFillRequest };
}
