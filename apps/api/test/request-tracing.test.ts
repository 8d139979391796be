import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { eventsOf, waitFor } from './support/event-schemas.js';
import { createPatient } from './support/fixtures.js';
import { pharmacyEnv, transferBody } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { startReceiver, TEST_SECRETS_KEY, type Receiver } from './support/webhook-receiver.js';

/**
 * Work a request causes later (the sandbox's steps, the events they record, their webhook
 * deliveries) carries that request's id, and every log line of it names the id as `reqId`,
 * the key of the request's own log lines: an operator follows one id from the API call to
 * the last delivery.
 */
let t: TestApp;
let acme: NewCustomer;
let receiver: Receiver;
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestApp(
    { ...pharmacyEnv, SANDBOX_STEP_DELAY_MS: '0', SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE: '0,20ms', WEBHOOK_POLL_MS: '50' },
    { log: (entry) => logged.push(entry) },
  );
  acme = await t.customer('Acme');
  // The first delivery fails, so a delivery's log line is written too.
  receiver = await startReceiver((n) => (n === 0 ? 503 : 200));
  await t.app.services.webhookEndpoints.set({ customerId: acme.customer_id, environment: 'sandbox' }, receiver.url, 'test');
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('the request that caused the work', () => {
  it('is carried by the sandbox steps of a transfer, the events they record, and their log lines', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    const response = await t.raw('POST', '/v1/transfer_request', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(transferBody(patient, ['Lisinopril'])),
    });
    expect(response.status).toBe(201);
    const requestId = response.headers.get('x-request-id')!;
    const transfer = response.json.request_id as string;
    expect(requestId).toMatch(/^req_/);

    const events = await waitFor(async () => {
      const mine = (await eventsOf(t.database.handle.db, acme.customer_id)).filter((e) => e.details.patient_token === patient);
      return mine.some((e) => e.callback_type === 'TRANSFER') ? mine : undefined;
    }, 20_000, 'the TRANSFER event');
    expect(events.map((e) => e.callback_type)).toEqual(['TRANSFER_CONTACT', 'NOTIFY_RX', 'TRANSFER']);

    const db = t.database.handle.db;
    const step = await db.selectFrom('sandbox_steps').select('origin_request_id').where('subject_token', '=', transfer).executeTakeFirstOrThrow();
    expect(step.origin_request_id).toBe(requestId);
    const origins = await db.selectFrom('events').select('origin_request_id').where('customer_id', '=', acme.customer_id).execute();
    expect(origins.map((e) => e.origin_request_id)).toEqual([requestId, requestId, requestId]);

    const steps = logged.filter((l) => l.msg === 'sandbox step performed' && l.subject_token === transfer);
    expect(steps.map((l) => [l.reqId, l.step, l.outcome])).toEqual([
      [requestId, 0, 'next'],
      [requestId, 1, 'done'],
    ]);
    await waitFor(async () => logged.some((l) => l.msg === 'webhook attempt failed'), 10_000, 'the failed delivery logged');
    const failed = logged.find((l) => l.msg === 'webhook attempt failed')!;
    expect(failed).toMatchObject({ reqId: requestId, status_code: 503, next: 'retrying' });
    // The request's own log lines carry the same id under the same key.
    expect(logged.some((l) => l.reqId === requestId && l.msg === 'request completed')).toBe(true);
  });

  it('of an admin command is its own id, carried by the events its action records', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    const received = await t.app.services.units.run('admin_tracing', (uow) =>
      t.app.services.prescriptionIntake.receiveElectronic(uow, { customerId: acme.customer_id, environment: 'sandbox' }, patient, { medication_name: 'Lisinopril 10 mg tablet' }),
    );
    const event = await t.database.handle.db
      .selectFrom('events')
      .select(['origin_request_id', 'payload'])
      .where('payload', 'like', `%${received.prescription_token}%`)
      .executeTakeFirstOrThrow();
    expect(event.origin_request_id).toBe('admin_tracing');
  });
});
