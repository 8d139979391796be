// Submitting a fill request (createFillRequest): the receipt, how each prescription is filled,
// concurrent fills of the last refill, insurance billing, triage holds, OTC products and form bodies.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { advanceClock, resetClock } from '../src/clock.js';
import { PrescriptionRepository } from '../src/prescriptions/prescription-repository.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { cashBody, fillRequestSteps } from './support/fill-request-steps.js';
import { address, insertPrescription } from './support/fixtures.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  ({ t, acme } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

afterEach(() => resetClock());

const { patientWithPrescription, submit, readPrescription, countRows } = fillRequestSteps(() => ({ t, acme }));

describe('submitting a fill request', () => {
  it('answers a receipt whose request_id reads the request back as submitted', async () => {
    const { patient, rx } = await patientWithPrescription();
    const body = cashBody(patient, [rx.token], {
      otc_products: [{ item: 'Ibuprofen 200 mg tablets, 50 count', quantity: 2 }],
      metadata: 'order-1',
      signature_confirmation: true,
    });
    const { data, response } = await submit(body);
    expect(response.status).toBe(201);
    expect(data).toEqual({
      request_id: expect.any(String),
      timestamp: expect.any(String),
      status: 'pending',
      details: { message: 'Fill request received.', metadata: 'order-1' },
    });
    const read = await t.client(acme.sandbox_api_key).GET('/v1/fill_request/{url_token}', {
      params: { path: { url_token: data!.request_id } },
    });
    expect(read.response.status).toBe(202);
    expect(read.data).toEqual({
      ...body,
      shipping_method: 'usps_first',
      request_id: data!.request_id,
      status: 'pending',
      created_at: data!.timestamp,
      copay_request_ids: [],
    });
  });

  it('fills each prescription: the first fill keeps the refills, dispenses the prescribed quantity and sets the fill dates', async () => {
    const { patient, rx } = await patientWithPrescription({ number_of_refills_allowed: 1, refills_remaining: 1, quantity_remaining: 50 });
    expect((await submit(cashBody(patient, [rx.token]))).response.status).toBe(201);
    const first = await readPrescription(rx.token);
    expect(first).toMatchObject({ refills_remaining: 1, quantity_remaining: 20 });
    expect(first.date_filled_utc).toEqual(expect.any(String));
    expect(first.last_filled_date).toBe(first.date_filled_utc);

    // A refill right away is too soon: held, nothing dispensed, until the scheduler submits it when allowed.
    const held = await submit(cashBody(patient, [rx.token]));
    expect(held.response.status).toBe(201);
    expect(held.data).toMatchObject({ status: 'scheduled', details: { scheduled_fill_request: { original_fill_request_token: held.data!.request_id } } });
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 1, quantity_remaining: 20 });
    advanceClock(30 * 86_400_000);
    await t.app.services.scheduler.tick();

    // N refills allowed means N+1 fills: the refill consumes one, and dispenses only what remains.
    const second = await readPrescription(rx.token);
    expect(second).toMatchObject({ refills_remaining: 0, quantity_remaining: 0, date_filled_utc: first.date_filled_utc });

    const third = await submit(cashBody(patient, [rx.token]));
    expect(third.response.status).toBe(400);
    expect(third.error).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      validation_errors: [{ key: 'medications.0.prescription_token', message: 'is not fillable: it has no quantity remaining' }],
    });
    const listed = await t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}/prescriptions', {
      params: { path: { patient_token: patient } },
    });
    expect(listed.data!.prescriptions[0]).toMatchObject({ prescription_token: rx.token, fillable: false });
  });

  it('refuses a refill when refills are used up even with quantity left', async () => {
    const { patient, rx } = await patientWithPrescription({
      refills_remaining: 0,
      quantity_remaining: 60,
      date_filled_utc: '2026-01-05T00:00:00.000Z',
      last_filled_date: '2026-01-05T00:00:00.000Z',
    });
    const { error } = await submit(cashBody(patient, [rx.token]));
    expect((error as any).validation_errors).toEqual([{ key: 'medications.0.prescription_token', message: 'is not fillable: it has no refills remaining' }]);
  });

  it('lets only one of several concurrent fills of the last refill succeed', async () => {
    const { patient, rx } = await patientWithPrescription({
      refills_remaining: 1,
      quantity_remaining: 300,
      date_filled_utc: '2026-01-05T00:00:00.000Z',
      last_filled_date: '2026-01-05T00:00:00.000Z',
    });
    const answers = await Promise.all(Array.from({ length: 6 }, () => submit(cashBody(patient, [rx.token]))));
    const statuses = answers.map((a) => a.response.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400]);
    for (const a of answers.filter((x) => x.response.status === 400)) {
      expect((a.error as any).validation_errors).toEqual([{ key: 'medications.0.prescription_token', message: 'is not fillable: it has no refills remaining' }]);
    }
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 0, quantity_remaining: 270 });
    expect(await countRows('fill_requests', patient)).toBe(1);
  });

  it('fills one prescription for each of many concurrent requests while its refills last', async () => {
    const { patient, rx } = await patientWithPrescription({ refills_remaining: 100, quantity_remaining: 3000 });
    const answers = await Promise.all(Array.from({ length: 16 }, () => submit(cashBody(patient, [rx.token]))));
    expect(answers.map((a) => a.response.status)).toEqual(Array(16).fill(201));
    expect(await countRows('fill_requests', patient)).toBe(16);
    // Each fill went on from the one before it: the quantity left is what the sixteen fills did not take (no fill lost).
    const fills = await t.database.handle.db.selectFrom('fill_request_medications').select('quantity').where('prescription_token', '=', rx.token).execute();
    const taken = fills.reduce((sum, fill) => sum + Number(fill.quantity), 0);
    expect(taken).toBeGreaterThan(0);
    expect((await readPrescription(rx.token)).quantity_remaining).toBe(3000 - taken);
  });

  it.runIf(process.env.TEST_DATABASE === 'postgres')('holds the lock of a prescription it reads again to fill until its transaction ends', async () => {
    const { rx } = await patientWithPrescription();
    const db = t.database.handle.db;
    const repository = new PrescriptionRepository(db);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const filling = db.transaction().execute(async (trx) => {
      await repository.lockForFill(rx.token, trx);
      locked();
      await held;
    });
    await lockTaken;
    const other = db
      .transaction()
      .execute(async (trx) => {
        await sql`set local lock_timeout = '200ms'`.execute(trx);
        await trx.updateTable('prescriptions').set({ refills_remaining: 0 }).where('token', '=', rx.token).execute();
      })
      .catch((error: { code?: string }) => error.code);
    expect(await other).toBe('55P03'); // lock_not_available: the row is the filling transaction's
    release();
    await filling;
  });

  it('bills insurance: stores card fields as an insurance record, names plans by token and opens a copay request per prescription', async () => {
    const { patient, rx } = await patientWithPrescription();
    const second = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, { days_supply: '90' });
    const card = { cardholder_id: 'ZXC123456789', rx_bin: '610014', rx_group: 'RX4412', pcn: 'MEDDADV', phone_number: '8005550199' };
    const first = await submit({ ...cashBody(patient, [rx.token, second.token]), patient_payment_type: 'insurance', insurances: [card] });
    expect(first.response.status).toBe(201);
    const read = await t.client(acme.sandbox_api_key).GET('/v1/fill_request/{url_token}', {
      params: { path: { url_token: first.data!.request_id } },
    });
    const insuranceToken = read.data!.insurances![0]!.insurance_token!;
    expect(read.data!.insurances).toEqual([{ insurance_token: insuranceToken }]);
    expect(JSON.stringify(read.data)).not.toContain('ZXC123456789');

    const insurance = await t.client(acme.sandbox_api_key).GET('/v1/insurance/{insurance_token}', {
      params: { path: { insurance_token: insuranceToken } },
    });
    expect(insurance.data).toMatchObject({ patient_token: patient, cardholder_id: '********6789', rx_bin: '610014', pcn: 'MEDDADV' });

    expect(read.data!.copay_request_ids).toHaveLength(2);
    const copays = await Promise.all(
      read.data!.copay_request_ids.map((id) =>
        t.client(acme.sandbox_api_key).GET('/v1/copay_request/{request_id}', { params: { path: { request_id: id } } }),
      ),
    );
    expect(copays.map((c) => c.response.status)).toEqual([202, 202]);
    expect(copays.map((c) => c.data)).toEqual([
      expect.objectContaining({ prescription_token: rx.token, insurance_token: insuranceToken, status: 'pending', copay_amount: null, quantity: 30, days_supply: 30 }),
      expect.objectContaining({ prescription_token: second.token, insurance_token: insuranceToken, status: 'pending', days_supply: 90 }),
    ]);

    // The stored record is then named by token (the token wins over card fields sent with it).
    const again = await submit({
      ...cashBody(patient, [rx.token]),
      patient_payment_type: 'insurance',
      insurances: [{ insurance_token: insuranceToken, cardholder_id: 'OTHER', rx_bin: '999999' }],
    });
    expect(again.response.status).toBe(201);
    expect(await countRows('insurances', patient)).toBe(1);
  });

  it('holds a request with check_in for a pharmacist (triage) and keeps the designed defaults', async () => {
    const { patient, rx } = await patientWithPrescription();
    const { data } = await submit(cashBody(patient, [rx.token], { check_in: true, shipping_method: 'fedex_ground' }));
    expect(data!.status).toBe('triage');
    const read = await t.client(acme.sandbox_api_key).GET('/v1/fill_request/{url_token}', {
      params: { path: { url_token: data!.request_id } },
    });
    expect(read.data).toMatchObject({ check_in: true, shipping_method: 'fedex_ground', status: 'triage' });
  });

  it('accepts OTC products only, form-encoded bodies with nested arrays, and the /api/v1 alias', async () => {
    const { patient, rx } = await patientWithPrescription();
    const otcOnly = await submit({ ...cashBody(patient, []), medications: undefined, otc_products: [{ item: 'Vitamin D', quantity: 1 }] });
    expect(otcOnly.response.status).toBe(201);

    const form = new URLSearchParams({
      patient_token: patient,
      patient_payment_type: 'insurance',
      'insurances[0][cardholder_id]': 'FORM12345',
      'insurances[0][rx_bin]': '004336',
      'medications[0][prescription_token]': rx.token,
      'otc_products[0][item]': 'Vitamin D',
      'otc_products[0][quantity]': '3',
      ...address,
      'patient_survey[allergies]': 'Penicillin',
      'patient_survey[thyroid_disorder]': 'false',
      'patient_survey[events][0][year]': '2019',
      'patient_survey[events][0][type]': 'surgery',
      check_in: 'true',
    });
    const posted = await t.raw('POST', '/api/v1/fill_request', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(posted.status).toBe(201);
    const read = await t.client(acme.sandbox_api_key, { alias: true }).GET('/v1/fill_request/{url_token}', {
      params: { path: { url_token: posted.json.request_id } },
    });
    expect(read.data).toMatchObject({
      patient_payment_type: 'insurance',
      medications: [{ prescription_token: rx.token }],
      otc_products: [{ item: 'Vitamin D', quantity: 3 }],
      patient_survey: { allergies: 'Penicillin', thyroid_disorder: false, events: [{ year: '2019', type: 'surgery' }] },
      check_in: true,
      status: 'triage',
    });
    expect(read.data!.copay_request_ids).toHaveLength(1);
  });
});
