// Canceling a fill request (cancelFillRequest): whole or item by item, the fills given back to
// the prescriptions, the refusals (403 unknown, another customer's or canceled already; 400
// dispensed or refused), concurrent cancels, and what the pharmacy then dispenses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import type { PrescriptionsTable } from '../src/prescriptions/prescription-tables.js';
import { randomToken } from '../src/tokens.js';
import { eventsOf } from './support/event-schemas.js';
import { cashBody } from './support/fill-request-steps.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { pharmacyEnv } from './support/lifecycle-fixtures.js';
import { summary } from './support/sandbox-steps.js';
import { staffActions, type StaffActions } from './support/staff-actions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
let staff: StaffActions;

beforeAll(async () => {
  // Refills are never held as too soon here (EARLY_REFILL_TOLERANCE 1): the stories fill a prescription again at once.
  t = await startTestApp({ ...pharmacyEnv, PHARMACY_LOCATION: 'Denver, CO', EARLY_REFILL_TOLERANCE: '1' });
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
  staff = staffActions(t, acme.customer_id);
  // The sandbox's steps are performed only when a test ticks the simulated pharmacy.
  await Promise.all(t.app.workers.map((w) => w.stop()));
});
afterAll(async () => t?.close());

const prod = () => acme.production_api_key;
const db = () => t.database.handle.db;
const fills = () => t.app.services.fillLifecycle;
const OTC = 'IBU-200-50';
const OTHER_OTC = 'VITC-500';

const forbiddenBody = (token: string) => ({
  statusCode: 403,
  error: 'Forbidden',
  message: `There was an error cancelling this request (${token}), either you are not the owner of the request, or have already cancelled the request.`,
});

/** A patient of acme (production unless `sandbox`) with `count` fillable prescriptions. */
async function patientWith(count: number, over: Partial<PrescriptionsTable> = {}, sandbox = false) {
  const key = sandbox ? acme.sandbox_api_key : prod();
  const patient = await createPatient(t, key);
  const rxs: PrescriptionsTable[] = [];
  for (let i = 0; i < count; i++) {
    rxs.push(await insertPrescription(t, { customer_id: acme.customer_id, environment: sandbox ? 'sandbox' : 'production', patient_token: patient }, over));
  }
  return { patient, rxs, key };
}

async function submit(key: string, body: Record<string, unknown>): Promise<string> {
  const { data, response } = await t.client(key).POST('/v1/fill_request', { body: body as never });
  expect(response.status).toBe(201);
  return data!.request_id;
}

function cancel(body: Record<string, unknown>, key = prod()) {
  return t.client(key).POST('/v1/cancel_request', { body: body as never });
}

async function readPrescription(token: string, key = prod()) {
  const { data, response } = await t.client(key).GET('/v1/prescription/{token}', { params: { path: { token } } });
  expect(response.status).toBe(200);
  return data!.prescription;
}

async function statusOf(request: string, key = prod()) {
  const { data } = await t.client(key).GET('/v1/fill_request/{url_token}', { params: { path: { url_token: request } } });
  return data!.status;
}

const fillsOf = (request: string) => db().selectFrom('fill_request_medications').selectAll().where('fill_request_token', '=', request).execute();

describe('canceling a whole fill request', () => {
  it('cancels every item, gives the fills back to the prescriptions and answers the receipt', async () => {
    const { patient, rxs, key } = await patientWith(2);
    const [a, b] = rxs as [PrescriptionsTable, PrescriptionsTable];
    const before = await Promise.all([readPrescription(a.token), readPrescription(b.token)]);
    expect(before[0]).toMatchObject({ refills_remaining: 2, quantity_remaining: 90, date_filled_utc: null, fillable: true });
    const request = await submit(key, cashBody(patient, [a.token, b.token], { otc_products: [{ item: OTC, quantity: 2 }] }));
    // The first fill keeps the refills and takes the quantity.
    expect(await readPrescription(a.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 60, date_filled_utc: expect.any(String) });

    const { data, response } = await cancel({ request_id: request });
    expect(response.status).toBe(200);
    expect(data).toEqual({
      request_id: expect.stringMatching(/^cancel_request_[0-9a-f]{32}$/),
      timestamp: expect.any(Number),
      status: 'success',
      details: {
        code: '03',
        description: 'Fill Request Cancelled by Customer Request',
        message: `Accepted: Fill Request ${request} has been cancelled.`,
        cancelled_medications: [{ prescription_token: a.token }, { prescription_token: b.token }],
        failed_medications: [],
        cancelled_otc_products: [{ sku: OTC }],
        failed_otc_products: [],
      },
    });
    expect(Math.abs(data!.timestamp * 1000 - Date.now())).toBeLessThan(60_000);
    expect(await statusOf(request)).toBe('canceled');
    // The prescriptions read as before the request: unfilled, every refill and the quantity back.
    expect(await Promise.all([readPrescription(a.token), readPrescription(b.token)])).toEqual(before);
  });

  it('a refill gives its refill back; canceling the first fill while a later one stands makes that one the first (its refill back)', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const rx = rxs[0]!;
    const first = await submit(key, cashBody(patient, [rx.token]));
    const afterFirst = await readPrescription(rx.token);
    const second = await submit(key, cashBody(patient, [rx.token]));
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 1, quantity_remaining: 30 });
    expect((await fillsOf(second))[0]).toMatchObject({ fill_number: 1 });

    // The refill canceled: the prescription as after the first fill.
    expect((await cancel({ request_id: second })).response.status).toBe(200);
    expect(await readPrescription(rx.token)).toEqual(afterFirst);

    // Filled again, then the first fill canceled: one fill stands, the first, which takes no refill.
    const third = await submit(key, cashBody(patient, [rx.token]));
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 1, quantity_remaining: 30 });
    expect((await cancel({ request_id: first })).response.status).toBe(200);
    const thirdAt = (await db().selectFrom('fill_requests').select('created_at').where('token', '=', third).executeTakeFirstOrThrow()).created_at;
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 60, date_filled_utc: thirdAt, last_filled_date: thirdAt });
    expect((await fillsOf(third))[0]).toMatchObject({ fill_number: 0 });

    // And the last one canceled: never filled.
    expect((await cancel({ request_id: third })).response.status).toBe(200);
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 90, date_filled_utc: null, last_filled_date: null });
  });

  it('a request held for a pharmacist (triage) is cancelled too; form bodies are read', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const request = await submit(key, cashBody(patient, [rxs[0]!.token], { check_in: true }));
    expect(await statusOf(request)).toBe('triage');
    const form = await t.raw('POST', '/v1/cancel_request', {
      headers: { authorization: `ApiKey ${prod()}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request_id: request }).toString(),
    });
    expect(form.status).toBe(200);
    expect(form.json.details.cancelled_medications).toEqual([{ prescription_token: rxs[0]!.token }]);
    expect(await statusOf(request)).toBe('canceled');
    expect(await readPrescription(rxs[0]!.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 90, date_filled_utc: null });
  });

  it('a request held as too soon (scheduled) filled nothing: it is cancelled and nothing is given back', async () => {
    const { patient, rxs } = await patientWith(1, { date_filled_utc: '2026-01-05T00:00:00.000Z', last_filled_date: '2026-01-05T00:00:00.000Z', refills_remaining: 1, quantity_remaining: 60 });
    const rx = rxs[0]!;
    const token = randomToken();
    const at = new Date().toISOString();
    await db()
      .insertInto('fill_requests')
      .values({
        token,
        customer_id: acme.customer_id,
        environment: 'production',
        patient_token: patient,
        status: 'scheduled',
        patient_payment_type: 'cash',
        metadata: null,
        shipping_method: 'usps_first',
        replacement_order: null,
        check_in: 0,
        payload: JSON.stringify({ ...cashBody(patient, [rx.token]), shipping_method: 'usps_first' }),
        order_token: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    const before = await readPrescription(rx.token);
    const { data, response } = await cancel({ request_id: token, medications: [{ prescription_token: rx.token }] });
    expect(response.status).toBe(200);
    expect(data!.details).toMatchObject({ message: `Accepted: Fill Request ${token} has been cancelled.`, cancelled_medications: [{ prescription_token: rx.token }] });
    expect(await statusOf(token)).toBe('canceled');
    expect(await readPrescription(rx.token)).toEqual(before);
  });
});

describe('canceling items of a fill request', () => {
  it('one medication of two, then the other: the request is canceled once none is left', async () => {
    const { patient, rxs, key } = await patientWith(2);
    const [a, b] = rxs as [PrescriptionsTable, PrescriptionsTable];
    const request = await submit(key, cashBody(patient, [a.token, b.token]));

    const first = await cancel({ request_id: request, medications: [{ prescription_token: a.token }] });
    expect(first.response.status).toBe(200);
    expect(first.data!.details).toEqual({
      code: '03',
      description: 'Fill Request Cancelled by Customer Request',
      message: `Accepted: the items listed were cancelled from Fill Request ${request}.`,
      cancelled_medications: [{ prescription_token: a.token }],
      failed_medications: [],
      cancelled_otc_products: [],
      failed_otc_products: [],
    });
    expect(await statusOf(request)).toBe('pending');
    expect(await readPrescription(a.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 90, date_filled_utc: null });
    expect(await readPrescription(b.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 60 });

    // The canceled one again fails; the other is canceled, and with it the request.
    const second = await cancel({ request_id: request, medications: [{ prescription_token: a.token }, { prescription_token: b.token }] });
    expect(second.response.status).toBe(200);
    expect(second.data!.details).toMatchObject({
      message: `Accepted: Fill Request ${request} has been cancelled.`,
      cancelled_medications: [{ prescription_token: b.token }],
      failed_medications: [{ prescription_token: a.token, reason: 'Medication already cancelled or cancellation failed' }],
    });
    expect(await statusOf(request)).toBe('canceled');
    expect(await readPrescription(b.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 90, date_filled_utc: null });
    expect((await cancel({ request_id: request, medications: [{ prescription_token: a.token }] })).response.status).toBe(403);
  });

  it('OTC products by SKU; items not on the request are listed as failed, and the rest stays', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const rx = rxs[0]!;
    const request = await submit(key, cashBody(patient, [rx.token], { otc_products: [{ item: OTC, quantity: 1 }, { item: OTHER_OTC, quantity: 3 }] }));
    const { data, response } = await cancel({
      request_id: request,
      medications: [{ prescription_token: 'rxNotOnThisRequest0000001' }],
      otc_products: [{ sku: OTC }, { sku: 'NOT-ON-REQUEST' }],
    });
    expect(response.status).toBe(200);
    expect(data!.details).toMatchObject({
      message: `Accepted: the items listed were cancelled from Fill Request ${request}.`,
      cancelled_medications: [],
      failed_medications: [{ prescription_token: 'rxNotOnThisRequest0000001', reason: 'Medication already cancelled or cancellation failed' }],
      cancelled_otc_products: [{ sku: OTC }],
      failed_otc_products: [{ sku: 'NOT-ON-REQUEST', reason: 'OTC Product already cancelled or cancellation failed' }],
    });
    expect(await statusOf(request)).toBe('pending');
    expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: 60 });

    const again = await cancel({ request_id: request, otc_products: [{ sku: OTC }] });
    expect(again.data!.details).toMatchObject({ cancelled_otc_products: [], failed_otc_products: [{ sku: OTC, reason: 'OTC Product already cancelled or cancellation failed' }] });

    // The pharmacy dispenses what is left: the medication and the other product.
    const dispensed = await staff.act((uow) => fills().dispense(uow, request));
    const order = await t.client(key).GET('/v1/order/{token}', { params: { path: { token: dispensed.order_token } } });
    expect(order.data!.medications.map((m) => m.prescription_token)).toEqual([rx.token]);
    expect(order.data!.otc_products).toEqual([{ item: OTHER_OTC, quantity: 3 }]);
  });

  it('a whole cancel after a partial one cancels what is left', async () => {
    const { patient, rxs, key } = await patientWith(2);
    const [a, b] = rxs as [PrescriptionsTable, PrescriptionsTable];
    const request = await submit(key, cashBody(patient, [a.token, b.token], { otc_products: [{ item: OTC, quantity: 1 }] }));
    expect((await cancel({ request_id: request, otc_products: [{ sku: OTC }] })).response.status).toBe(200);
    const { data } = await cancel({ request_id: request });
    expect(data!.details).toMatchObject({
      cancelled_medications: [{ prescription_token: a.token }, { prescription_token: b.token }],
      cancelled_otc_products: [],
      failed_medications: [],
      failed_otc_products: [],
    });
    expect(await statusOf(request)).toBe('canceled');
  });

  it('a partially canceled request is dispensed without the canceled medication', async () => {
    const { patient, rxs, key } = await patientWith(2);
    const [a, b] = rxs as [PrescriptionsTable, PrescriptionsTable];
    const request = await submit(key, cashBody(patient, [a.token, b.token]));
    expect((await cancel({ request_id: request, medications: [{ prescription_token: a.token }] })).response.status).toBe(200);
    const before = await staff.eventCount();
    await staff.act((uow) => fills().dispense(uow, request));
    const [event] = await staff.newEvents(before);
    expect(event).toMatchObject({ callback_type: 'ORDER', status: 'success', request_id: request });
    expect(event!.details.medications.map((m: { prescription_token: string }) => m.prescription_token)).toEqual([b.token]);
    expect(await statusOf(request)).toBe('filled');
  });
});

describe('refusals', () => {
  it('canceled already, unknown, another customer\'s, or of the other environment: 403 with the platform\'s message', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const request = await submit(key, cashBody(patient, [rxs[0]!.token]));
    expect((await cancel({ request_id: request })).response.status).toBe(200);
    const again = await cancel({ request_id: request });
    expect(again.response.status).toBe(403);
    expect(again.error).toEqual(forbiddenBody(request));

    const unknown = await cancel({ request_id: 'frUnknownRequest000000001' });
    expect(unknown.response.status).toBe(403);
    expect(unknown.error).toEqual(forbiddenBody('frUnknownRequest000000001'));

    const open = await submit(key, cashBody(patient, [(await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: patient })).token]));
    for (const other of [globex.production_api_key, acme.sandbox_api_key]) {
      const refused = await cancel({ request_id: open }, other);
      expect(refused.response.status).toBe(403);
      expect(refused.error).toEqual(forbiddenBody(open));
    }
    expect(await statusOf(open)).toBe('pending');
  });

  it('dispensed: 400, and nothing is given back; refused by the pharmacy (error): 400', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const rx = rxs[0]!;
    const request = await submit(key, cashBody(patient, [rx.token]));
    await staff.act((uow) => fills().dispense(uow, request));
    const filled = await readPrescription(rx.token);
    const { error, response } = await cancel({ request_id: request });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', message: `Fill request ${request} has already been dispensed and can no longer be cancelled.` });
    expect((await cancel({ request_id: request, medications: [{ prescription_token: rx.token }] })).response.status).toBe(400);
    expect(await readPrescription(rx.token)).toEqual(filled);
    expect(await statusOf(request)).toBe('filled');

    const refused = await submit(key, cashBody(patient, [rx.token]));
    await staff.act((uow) => fills().refuse(uow, refused, 'Out of stock.'));
    const answer = await cancel({ request_id: refused });
    expect(answer.response.status).toBe(400);
    expect(answer.error).toEqual({ statusCode: 400, error: 'Bad Request', message: `Fill request ${refused} could not be processed and can no longer be cancelled.` });
  });

  it('a body without request_id, or with an empty list: 400 validation errors', async () => {
    const missing = await cancel({ medications: [{ prescription_token: 'rx9Qw2Er4Ty6Ui8Op0As2Df4' }] });
    expect(missing.response.status).toBe(400);
    expect((missing.error as { validation_errors: { key: string }[] }).validation_errors.map((e) => e.key)).toContain('request_id');
    const empty = await cancel({ request_id: 'fr2Hj8Kl0Zx3Cv5Bn7Mq9Wd1', medications: [] });
    expect(empty.response.status).toBe(400);
  });

  it('a canceled request cannot be dispensed, held or refused by staff', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const request = await submit(key, cashBody(patient, [rxs[0]!.token]));
    expect((await cancel({ request_id: request })).response.status).toBe(200);
    await expect(staff.act((uow) => fills().dispense(uow, request))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    await expect(staff.act((uow) => fills().triage(uow, request))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    await expect(staff.act((uow) => fills().refuse(uow, request, 'No.'))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    expect(await statusOf(request)).toBe('canceled');
  });
});

describe('concurrency', () => {
  it('two concurrent cancels of one request: one 200, one 403; the fill is given back once', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const rx = rxs[0]!;
    const request = await submit(key, cashBody(patient, [rx.token]));
    const answers = await Promise.all([cancel({ request_id: request }), cancel({ request_id: request })]);
    expect(answers.map((a) => a.response.status).sort()).toEqual([200, 403]);
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 90, date_filled_utc: null });
    const rows = await db().selectFrom('fill_request_cancellations').selectAll().where('fill_request_token', '=', request).execute();
    expect(rows).toHaveLength(1);
  });

  it('concurrent cancels of the same medication: one cancels it, the other lists it as failed', async () => {
    const { patient, rxs, key } = await patientWith(2);
    const [a, b] = rxs as [PrescriptionsTable, PrescriptionsTable];
    const request = await submit(key, cashBody(patient, [a.token, b.token]));
    const body = { request_id: request, medications: [{ prescription_token: a.token }] };
    const answers = await Promise.all([cancel(body), cancel(body), cancel(body)]);
    expect(answers.map((x) => x.response.status)).toEqual([200, 200, 200]);
    expect(answers.filter((x) => x.data!.details.cancelled_medications.length === 1)).toHaveLength(1);
    expect(answers.filter((x) => x.data!.details.failed_medications.length === 1)).toHaveLength(2);
    expect(await readPrescription(a.token)).toMatchObject({ quantity_remaining: 90, date_filled_utc: null });
  });

  it('a cancel racing the pharmacy\'s dispense: either the cancel wins (no order) or the dispense (400)', async () => {
    const { patient, rxs, key } = await patientWith(1);
    const rx = rxs[0]!;
    const request = await submit(key, cashBody(patient, [rx.token]));
    const [canceled, dispensed] = await Promise.allSettled([cancel({ request_id: request }), staff.act((uow) => fills().dispense(uow, request))]);
    const status = canceled.status === 'fulfilled' ? canceled.value.response.status : 0;
    if (dispensed.status === 'fulfilled') {
      expect(status).toBe(400);
      expect(await statusOf(request)).toBe('filled');
      expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: 60 });
    } else {
      expect(status).toBe(200);
      expect(await statusOf(request)).toBe('canceled');
      expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: 90 });
    }
  });
});

describe('the sandbox\'s simulated pharmacy', () => {
  const stepsOf = (token: string) => db().selectFrom('sandbox_steps').selectAll().where('subject_token', '=', token).execute();
  const due = (token: string) => db().updateTable('sandbox_steps').set({ run_at: new Date(Date.now() - 1000).toISOString() }).where('subject_token', '=', token).execute();
  const eventsFor = async (token: string) => (await eventsOf(db(), acme.customer_id)).filter((e) => e.request_id === token);

  it('a request canceled before its turn is never dispensed: no ORDER, its script ends', async () => {
    const { patient, rxs, key } = await patientWith(1, {}, true);
    const request = await submit(key, cashBody(patient, [rxs[0]!.token]));
    expect(await stepsOf(request)).toMatchObject([{ state: 'scheduled', step: 0 }]);
    expect((await cancel({ request_id: request }, key)).response.status).toBe(200);

    await due(request);
    expect(await t.app.services.sandboxSimulator.tick()).toBeGreaterThanOrEqual(1);
    const [step] = await stepsOf(request);
    expect(step).toMatchObject({ state: 'failed' });
    expect(step!.last_error).toContain('canceled');
    expect(summary(await eventsFor(request))).toEqual([]);
    expect(await statusOf(request, key)).toBe('canceled');
  });

  it('a request partially canceled is dispensed with the rest only', async () => {
    const { patient, rxs, key } = await patientWith(2, {}, true);
    const [a, b] = rxs as [PrescriptionsTable, PrescriptionsTable];
    const request = await submit(key, cashBody(patient, [a.token, b.token]));
    expect((await cancel({ request_id: request, medications: [{ prescription_token: b.token }] }, key)).response.status).toBe(200);
    await due(request);
    await t.app.services.sandboxSimulator.tick();
    const events = await eventsFor(request);
    expect(summary(events)).toEqual(['ORDER:success']);
    expect(events[0]!.details.medications.map((m: { prescription_token: string }) => m.prescription_token)).toEqual([a.token]);
  });
});
