import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { TRANSFER_REJECTIONS, type TransferRejectionCode } from '../src/transfers/rejection-codes.js';
import { eventProblems, eventsOf, waitFor, type StoredEvent } from './support/event-schemas.js';
import { createPatient, destination, insertPrescription } from './support/fixtures.js';
import { directTransferBody, pharmacyEnv, transferBody } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const REJECTION_CODES = Object.keys(TRANSFER_REJECTIONS) as TransferRejectionCode[];

/**
 * The sandbox's simulated pharmacy (SANDBOX_STEP_DELAY_MS=0): sandbox requests go through
 * their lifecycles by themselves, with the events production staff actions record.
 */
let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  t = await startTestApp({ ...pharmacyEnv, SANDBOX_STEP_DELAY_MS: '0' });
  acme = await t.customer('Acme');
});
afterAll(async () => t?.close());

const db = () => t.database.handle.db;
const sandboxKey = () => acme.sandbox_api_key;
const { patient_survey: _survey, ...address } = destination;

/** The events of one request (and the NOTIFY_RX of the given patient), each valid against its schema. */
async function eventsFor(requestId: string, customerId = acme.customer_id): Promise<StoredEvent[]> {
  const events = (await eventsOf(db(), customerId)).filter((e) => e.request_id === requestId);
  for (const e of events) expect(eventProblems(e), `${e.callback_type} ${e.status ?? ''}`).toEqual([]);
  return events;
}

/** Waits until the request's events include one matching `last`. */
function waitForEvent(requestId: string, last: (e: StoredEvent) => boolean, what: string, customerId = acme.customer_id): Promise<StoredEvent[]> {
  return waitFor(async () => {
    const events = await eventsFor(requestId, customerId);
    return events.some(last) ? events : undefined;
  }, 20_000, what);
}

const summary = (events: StoredEvent[]) => events.map((e) => `${e.callback_type}:${e.status ?? '-'}${e.details.status ? `:${e.details.status}` : ''}`);

async function notifyRxOf(patient: string, customerId = acme.customer_id): Promise<StoredEvent[]> {
  const events = (await eventsOf(db(), customerId)).filter((e) => e.callback_type === 'NOTIFY_RX' && e.details.patient_token === patient);
  for (const e of events) expect(eventProblems(e)).toEqual([]);
  return events;
}

async function createTransfer(medications: string[] | undefined, extra: Record<string, unknown> = {}, key = sandboxKey()) {
  const patient = await createPatient(t, key);
  const { data, response } = await t.client(key).POST('/v1/transfer_request', { body: transferBody(patient, medications, extra) as never });
  expect(response.status).toBe(201);
  return { patient, token: data!.request_id };
}

async function createDirectTransfer(prescription: Record<string, unknown> = {}, key = sandboxKey()) {
  const patient = await createPatient(t, key);
  const { data, response } = await t.client(key).POST('/v1/direct_transfer', { body: directTransferBody(patient, prescription) as never });
  expect(response.status).toBe(201);
  return { patient, token: data!.request_id };
}

async function createFillRequest(patient: string, prescription: string, metadata?: string, key = sandboxKey()) {
  const { data, response } = await t.client(key).POST('/v1/fill_request', {
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

describe('transfer requests in the sandbox', () => {
  it('a transfer of 3 medications: TRANSFER_CONTACT, 3 NOTIFY_RX, one TRANSFER success; the request completed', async () => {
    const { patient, token } = await createTransfer(['Lisinopril', 'Metformin', 'Atorvastatin']);
    const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:success']);
    expect(events[0]!.details).toMatchObject({ contact_method: 'fax', contact_number: '5125550101', transfer_token: token });
    const transferred = events[1]!.details.medications as { prescription_token: string; requested_medication_name: string }[];
    expect(transferred.map((m) => m.requested_medication_name)).toEqual(['Lisinopril', 'Metformin', 'Atorvastatin']);
    const notified = await notifyRxOf(patient);
    expect(notified.map((e) => e.details.prescription_token).sort()).toEqual(transferred.map((m) => m.prescription_token).sort());

    const { data } = await t.client(sandboxKey()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    expect(data![0]!.status).toBe('completed');
  });

  it('a transfer of every medication transfers one example medication; without a fax the pharmacy is phoned', async () => {
    const { patient, token } = await createTransfer(undefined, { pharmacy_fax: undefined });
    const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:success']);
    expect(events[0]!.details).toMatchObject({ contact_method: 'phone', contact_number: '5125550100' });
    expect(await notifyRxOf(patient)).toHaveLength(1);
  });

  it('every rejection code can be forced: `sandbox:reject:<code>` in notes or metadata ends with a TRANSFER error with it', async () => {
    const created = await Promise.all(
      REJECTION_CODES.map(async (code, i) => ({
        code,
        ...(await createTransfer(['Lisinopril'], i % 2 ? { notes: `please sandbox:reject:${code} thanks` } : { metadata: `sandbox:reject:${code}` })),
      })),
    );
    for (const { code, token, patient } of created) {
      const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', `TRANSFER of ${code}`);
      expect(summary(events)).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:error']);
      expect(events[1]!.details).toMatchObject({ error_code: code, description: TRANSFER_REJECTIONS[code] });
      expect(await notifyRxOf(patient)).toEqual([]);
      const { data } = await t.client(sandboxKey()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
      expect(data![0]).toMatchObject({ status: 'rejected', cancel_reason: code });
    }
  });

  it('`sandbox:contact_error`: TRANSFER_CONTACT error, then TRANSFER error TRANSFER_CONTACT_INFO_INCORRECT', async () => {
    const { token } = await createTransfer(['Lisinopril'], { metadata: 'sandbox:contact_error' });
    const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(['TRANSFER_CONTACT:error', 'TRANSFER:error']);
    expect(events.map((e) => e.details.error_code)).toEqual(['TRANSFER_CONTACT_INFO_INCORRECT', 'TRANSFER_CONTACT_INFO_INCORRECT']);
  });
});

describe('direct transfers in the sandbox', () => {
  it('accepted: NOTIFY_RX and DIRECT_TRANSFER success with the same prescription', async () => {
    const { patient, token } = await createDirectTransfer();
    const events = await waitForEvent(token, (e) => e.callback_type === 'DIRECT_TRANSFER', 'DIRECT_TRANSFER');
    expect(summary(events)).toEqual(['DIRECT_TRANSFER:success']);
    const [notify] = await notifyRxOf(patient);
    expect(notify!.details.prescription_token).toBe(events[0]!.details.prescription_token);
  });

  it.each([['number', { number: 'sandbox:reject' }], ['medication_sig', { medication_sig: 'Take daily sandbox:reject' }]])(
    '`sandbox:reject` in prescription.%s: only a DIRECT_TRANSFER error',
    async (_field, prescription) => {
      const { patient, token } = await createDirectTransfer(prescription);
      const events = await waitForEvent(token, (e) => e.callback_type === 'DIRECT_TRANSFER', 'DIRECT_TRANSFER');
      expect(summary(events)).toEqual(['DIRECT_TRANSFER:error']);
      expect(events[0]!.details.message).toMatch(/^Direct transfer rejected: /);
      expect(await notifyRxOf(patient)).toEqual([]);
    },
  );
});

describe('from a fresh sandbox: electronic prescription, fill request, order, shipment', () => {
  it('NOTIFY_RX, then ORDER, SHIPMENT IN_TRANSIT, OUT_FOR_DELIVERY, DELIVERED; the order delivered; the feed lists them', async () => {
    const fresh = await t.customer('Fresh');
    const key = fresh.sandbox_api_key;
    const patient = await createPatient(t, key);
    const { data, response } = await t.client(key).POST('/v1/sandbox/electronic_prescriptions', {
      body: { patient_token: patient, medication_name: 'Lisinopril 10 mg tablet', refills: 3 },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ patient_token: patient, patient_token_duplicates: [] });
    const [notify] = await notifyRxOf(patient, fresh.customer_id);
    expect(notify!.details).toMatchObject({ prescription_token: data!.prescription_token, medication_name: 'Lisinopril 10 mg tablet' });

    const request = await createFillRequest(patient, data!.prescription_token, 'order-10046', key);
    const events = await waitForEvent(request, (e) => e.callback_type === 'SHIPMENT' && e.details.status === 'DELIVERED', 'DELIVERED', fresh.customer_id);
    expect(summary(events)).toEqual([
      'ORDER:success',
      'SHIPMENT:success:IN_TRANSIT',
      'SHIPMENT:success:OUT_FOR_DELIVERY',
      'SHIPMENT:success:DELIVERED',
    ]);
    const order = events[0]!.details;
    expect(order).toMatchObject({ metadata: 'order-10046', patient_token: patient });
    expect(order.medications[0]).toMatchObject({ prescription_token: data!.prescription_token, fill_number: 0, dispensed_ndc: '00071015523' });
    const read = await t.client(key).GET('/v1/order/{token}', { params: { path: { token: order.order_token } } });
    expect(read.data).toMatchObject({ status: 'delivered', carrier: 'USPS', tracking_number: events[3]!.details.tracking_number });

    // The event feed lists the same envelopes (the typed client checks them against the spec).
    const feed = await t.client(key).GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
    expect(feed.response.status).toBe(200);
    const listed = feed.data!.results.map((r) => r.payload as { callback_type: string });
    expect(listed.map((p) => p.callback_type).sort()).toEqual(['NOTIFY_RX', 'ORDER', 'SHIPMENT', 'SHIPMENT', 'SHIPMENT']);
  });

  it.each([
    ['sandbox:triage', ['ORDER:triage'], 'triage'],
    ['sandbox:error', ['ORDER:error'], 'error'],
    ['sandbox:returned', ['ORDER:success', 'SHIPMENT:success:IN_TRANSIT', 'SHIPMENT:error:RETURNED'], 'filled'],
  ])('fill request metadata `%s`', async (metadata, expected, requestStatus) => {
    const patient = await createPatient(t, sandboxKey());
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const request = await createFillRequest(patient, rx.token, metadata);
    const last = expected[expected.length - 1]!;
    const events = await waitForEvent(request, (e) => summary([e])[0] === last, last);
    expect(summary(events)).toEqual(expected);
    // Nothing filled: no order to name, no fill date, no medications.
    const order = events[0]!;
    if (order.status !== 'success') expect(order.details).toMatchObject({ order_token: null, date_filled: null, medications: [] });
    else expect(order.details.order_token).toEqual(expect.any(String));
    const { data } = await t.client(sandboxKey()).GET('/v1/fill_request/{url_token}', { params: { path: { url_token: request } } });
    expect(data!.status).toBe(requestStatus);
  });
});

describe('POST /v1/sandbox/electronic_prescriptions', () => {
  it('fills in defaults, and accepts form bodies and the /api/v1 alias', async () => {
    const patient = await createPatient(t, sandboxKey());
    const form = await t.raw('POST', '/api/v1/sandbox/electronic_prescriptions', {
      headers: { authorization: `ApiKey ${sandboxKey()}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ patient_token: patient, quantity: '60' }).toString(),
    });
    expect(form.status).toBe(201);
    const rx = await db().selectFrom('prescriptions').selectAll().where('token', '=', form.json.prescription_token).executeTakeFirstOrThrow();
    expect(rx).toMatchObject({ medication_name: 'Atorvastatin 20 mg tablet', prescribed_quantity: 60, number_of_refills_allowed: 2, origin: 'electronic', environment: 'sandbox' });
  });

  it('names look-alike patients (same names and date of birth, other gender) in patient_token_duplicates', async () => {
    const first_name = `Twin${Date.now()}`;
    const patient = await createPatient(t, sandboxKey(), { first_name });
    const other = await createPatient(t, sandboxKey(), { first_name, gender: 'male' });
    const { data } = await t.client(sandboxKey()).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient } });
    expect(data!.patient_token_duplicates).toEqual([other]);
    const [notify] = await notifyRxOf(patient);
    expect(notify!.details.patient_token_duplicates).toEqual([other]);
  });

  it('refuses a production key (403), an unknown patient (404), another customer\'s patient (400) and bad fields (400)', async () => {
    const patient = await createPatient(t, sandboxKey());
    const production = await t.client(acme.production_api_key).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient } });
    expect(production.response.status).toBe(403);
    expect(production.error).toMatchObject({ message: 'This operation is available in the sandbox only.' });
    const unknown = await t.client(sandboxKey()).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: 'nope' } });
    expect(unknown.response.status).toBe(404);
    const globex = await t.customer('Globex');
    const foreign = await t.client(globex.sandbox_api_key).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient } });
    expect(foreign.response.status).toBe(400);
    const bad = await t.client(sandboxKey()).POST('/v1/sandbox/electronic_prescriptions', {
      body: { patient_token: patient, prescribed_ndc: 'abc', refills: 100 } as never,
    });
    expect(bad.response.status).toBe(400);
    expect(await notifyRxOf(patient)).toEqual([]);
  });
});

describe('the schedule', () => {
  it('SANDBOX_STEP_DELAY_MS: 3000 by default, 0 allowed, anything else refused at start', () => {
    expect(loadConfig({}).sandboxStepDelayMs).toBe(3000);
    expect(loadConfig({ SANDBOX_STEP_DELAY_MS: '0' }).sandboxStepDelayMs).toBe(0);
    for (const bad of ['-1', '1.5', 'soon', '86400001']) {
      expect(() => loadConfig({ SANDBOX_STEP_DELAY_MS: bad })).toThrow(/SANDBOX_STEP_DELAY_MS/);
    }
  });

  const stepsOf = (token: string) => db().selectFrom('sandbox_steps').selectAll().where('subject_token', '=', token).execute();

  it('production creates schedule nothing (pharmacy staff process them)', async () => {
    const key = acme.production_api_key;
    const { token: transfer } = await createTransfer(['Lisinopril'], {}, key);
    const { token: direct } = await createDirectTransfer({}, key);
    const patient = await createPatient(t, key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: patient });
    const fill = await createFillRequest(patient, rx.token, undefined, key);
    for (const token of [transfer, direct, fill]) expect(await stepsOf(token)).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    for (const token of [transfer, direct, fill]) expect(await eventsFor(token)).toEqual([]);
  });

  it('a refused create schedules nothing', async () => {
    const before = (await db().selectFrom('sandbox_steps').select('id').execute()).length;
    const patient = await createPatient(t, sandboxKey());
    const { response } = await t.client(sandboxKey()).POST('/v1/fill_request', {
      body: { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: 'missing' }], ...address, patient_survey: {} } as never,
    });
    expect(response.status).toBe(400);
    expect((await db().selectFrom('sandbox_steps').select('id').execute()).length).toBe(before);
  });

  it('survives a restart: a new app on the same database runs the remaining steps, each once', async () => {
    // The first process: an hour between steps, so only what it is told to do happens.
    const first = await startTestApp({ ...pharmacyEnv });
    try {
      const customer = await first.customer('Restart');
      const patient = await createPatient(first, customer.sandbox_api_key);
      const rx = await insertPrescription(first, { customer_id: customer.customer_id, patient_token: patient });
      const { data } = await first.client(customer.sandbox_api_key).POST('/v1/fill_request', {
        body: { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: rx.token }], ...address, patient_survey: {} } as never,
      });
      const request = data!.request_id;
      const fdb = first.database.handle.db;
      const due = () => fdb.updateTable('sandbox_steps').set({ run_at: new Date(Date.now() - 1000).toISOString() }).where('subject_token', '=', request).execute();
      const [scheduled] = await fdb.selectFrom('sandbox_steps').selectAll().where('subject_token', '=', request).execute();
      expect(scheduled).toMatchObject({ subject: 'fill_request', step: 0, state: 'scheduled' });

      // It performs the first step (ORDER), then stops.
      await Promise.all(first.app.workers.map((w) => w.stop()));
      await due();
      expect(await first.app.services.sandboxSimulator.tick()).toBe(1);
      const events = async () => (await eventsOf(fdb, customer.customer_id)).filter((e) => e.request_id === request);
      expect(summary(await events())).toEqual(['ORDER:success']);

      // Time passes; two new processes start on the same database and share the remaining steps.
      await due();
      const config = loadConfig({ LOG_LEVEL: 'silent', SANDBOX_STEP_DELAY_MS: '0', ...pharmacyEnv });
      const second = await buildApp({ config, database: first.database.handle });
      const third = await buildApp({ config, database: first.database.handle });
      try {
        await Promise.all([second.fastify.ready(), third.fastify.ready()]);
        const done = await waitFor(async () => {
          const all = await events();
          return all.some((e) => e.details.status === 'DELIVERED') ? all : undefined;
        }, 20_000, 'DELIVERED after restart');
        expect(summary(done)).toEqual(['ORDER:success', 'SHIPMENT:success:IN_TRANSIT', 'SHIPMENT:success:OUT_FOR_DELIVERY', 'SHIPMENT:success:DELIVERED']);
        const [finished] = await fdb.selectFrom('sandbox_steps').selectAll().where('subject_token', '=', request).execute();
        expect(finished).toMatchObject({ state: 'done', step: 4, locked_until: null });
      } finally {
        await second.fastify.close();
        await third.fastify.close();
      }
    } finally {
      await first.close();
    }
  });
});
