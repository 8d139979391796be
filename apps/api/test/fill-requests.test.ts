import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { UnitsOfWork } from '../src/events/unit-of-work.js';
import { FillRequestRepository } from '../src/fill-requests/fill-request-repository.js';
import type { PrescriptionsTable } from '../src/prescriptions/prescription-tables.js';
import { SimpleTransactor, type Transactor } from '../src/db/transactor.js';
import { FillRequestService } from '../src/fill-requests/fill-request-service.js';
import { createPatient, insertPrescription, destination } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  t = await startTestApp();
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
});
afterAll(async () => t?.close());

const { patient_survey: _survey, ...address } = destination;

/** A patient of acme (sandbox) with one fillable prescription. */
async function patientWithPrescription(
  over: Partial<PrescriptionsTable> = {},
  customer: NewCustomer = acme,
): Promise<{ patient: string; rx: PrescriptionsTable }> {
  const patient = await createPatient(t, customer.sandbox_api_key);
  const rx = await insertPrescription(t, { customer_id: customer.customer_id, patient_token: patient }, over);
  return { patient, rx };
}

function cashBody(patient: string, prescriptions: string[], extra: Record<string, unknown> = {}) {
  return {
    patient_token: patient,
    patient_payment_type: 'cash',
    medications: prescriptions.map((prescription_token) => ({ prescription_token })),
    ...address,
    patient_survey: { allergies: 'None' },
    ...extra,
  };
}

async function submit(body: Record<string, unknown>, key = acme.sandbox_api_key) {
  return t.client(key).POST('/v1/fill_request', { body: body as never });
}

async function readPrescription(token: string): Promise<PrescriptionsTable> {
  return t.database.handle.db.selectFrom('prescriptions').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
}

async function countRows(table: 'fill_requests' | 'insurances' | 'copay_requests', patient: string): Promise<number> {
  const rows = await t.database.handle.db.selectFrom(table).select('token').where('patient_token', '=', patient).execute();
  return rows.length;
}

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

    // N refills allowed means N+1 fills: the refill consumes one, and dispenses only what remains.
    expect((await submit(cashBody(patient, [rx.token]))).response.status).toBe(201);
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

  it.each([
    ['a missing field', { address_to_street1: undefined }, [{ key: 'address_to_street1', message: 'is required' }]],
    ['an empty field', { address_to_name: '' }, [{ key: 'address_to_name', message: 'is not allowed to be empty' }]],
    ['an unknown field', { colour: 'blue' }, [{ key: 'colour', message: 'is not allowed' }]],
    ['no survey', { patient_survey: undefined }, [{ key: 'patient_survey', message: 'is required' }]],
    ['insurance payment without insurances', { patient_payment_type: 'insurance' }, [{ key: 'insurances', message: 'is required' }]],
    [
      'nothing to fill',
      { medications: [] },
      [
        { key: 'medications', message: 'must contain at least 1 items' },
        { key: 'otc_products', message: 'is required' },
      ],
    ],
    [
      'a card without its BIN',
      { patient_payment_type: 'insurance', insurances: [{ cardholder_id: 'X1' }] },
      [
        { key: 'insurances.0.rx_bin', message: 'is required' },
        { key: 'insurances.0.insurance_token', message: 'is required' },
      ],
    ],
    [
      'a BIN of the wrong length',
      { patient_payment_type: 'insurance', insurances: [{ cardholder_id: 'X1', rx_bin: '123' }] },
      [{ key: 'insurances.0.rx_bin', message: 'length must be at least 6 characters long' }],
    ],
    ['an unknown shipping method', { shipping_method: 'pigeon' }, [{ key: 'shipping_method', message: expect.stringContaining('must be one of [') }]],
    ['an OTC quantity of zero', { otc_products: [{ item: 'Vitamin D', quantity: 0 }] }, [{ key: 'otc_products.0.quantity', message: 'must be greater than or equal to 1' }]],
  ])('refuses %s', async (_name, change, expected) => {
    const { patient, rx } = await patientWithPrescription();
    const { error, response } = await submit({ ...cashBody(patient, [rx.token]), ...change });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: expected });
    expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: rx.quantity_remaining, date_filled_utc: null });
  });

  it('refuses an unknown patient (404) and another customer’s patient (400 Unauthorized)', async () => {
    const { rx } = await patientWithPrescription();
    const unknown = await submit(cashBody('nosuchpatient', [rx.token]));
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' });
    const theirs = await createPatient(t, globex.sandbox_api_key);
    const other = await submit(cashBody(theirs, [rx.token]));
    expect(other.response.status).toBe(400);
    expect(other.error).toEqual({ statusCode: 400, error: 'Unauthorized', message: 'Patient does not belong to this customer.' });
  });

  it('knows nothing of the other environment: its patient answers 404, its prescription `does not exist`', async () => {
    const { patient, rx } = await patientWithPrescription();
    const production = await createPatient(t, acme.production_api_key);
    const productionRx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: production });
    const sandboxPatientInProduction = await submit(cashBody(patient, [rx.token]), acme.production_api_key);
    expect(sandboxPatientInProduction.response.status).toBe(404);
    expect(sandboxPatientInProduction.error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' });
    const productionRxInSandbox = await submit(cashBody(patient, [productionRx.token]));
    expect(productionRxInSandbox.response.status).toBe(400);
    expect((productionRxInSandbox.error as any).validation_errors).toEqual([{ key: 'medications.0.prescription_token', message: 'does not exist' }]);
    expect(await countRows('fill_requests', patient)).toBe(0);
  });

  it('refuses prescriptions that do not exist, belong to another patient or cannot be filled, each by its index', async () => {
    const { patient, rx } = await patientWithPrescription();
    const { rx: otherPatients } = await patientWithPrescription();
    const { rx: otherCustomers } = await patientWithPrescription({}, globex);
    const expired = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, { expiration_date_utc: '2020-01-01T00:00:00.000Z' });
    const transferred = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, { status: 'transferred' });
    const empty = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, { quantity_remaining: 0 });
    const { error, response } = await submit(
      cashBody(patient, [rx.token, 'nosuchrx', otherPatients.token, otherCustomers.token, expired.token, transferred.token, empty.token]),
    );
    expect(response.status).toBe(400);
    expect((error as any).validation_errors).toEqual([
      { key: 'medications.1.prescription_token', message: 'does not exist' },
      { key: 'medications.2.prescription_token', message: 'does not belong to this patient' },
      { key: 'medications.3.prescription_token', message: 'does not exist' },
      { key: 'medications.4.prescription_token', message: 'is not fillable: it has expired' },
      { key: 'medications.5.prescription_token', message: 'is not fillable: it was transferred out' },
      { key: 'medications.6.prescription_token', message: 'is not fillable: it has no quantity remaining' },
    ]);
  });

  it('refuses insurance tokens that are not the patient’s and a replacement_order that is not this customer’s request', async () => {
    const { patient, rx } = await patientWithPrescription();
    const other = await patientWithPrescription();
    const elsewhere = await submit({
      ...cashBody(other.patient, [other.rx.token]),
      patient_payment_type: 'insurance',
      insurances: [{ cardholder_id: 'C1', rx_bin: '610014' }],
    });
    const elsewhereRead = await t.client(acme.sandbox_api_key).GET('/v1/fill_request/{url_token}', {
      params: { path: { url_token: elsewhere.data!.request_id } },
    });
    const theirInsurance = elsewhereRead.data!.insurances![0]!.insurance_token!;
    const production = await createPatient(t, acme.production_api_key);
    const productionRx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: production });
    const productionRequest = await submit(cashBody(production, [productionRx.token]), acme.production_api_key);
    expect(productionRequest.response.status).toBe(201);

    const { error } = await submit({
      ...cashBody(patient, [rx.token]),
      patient_payment_type: 'insurance',
      insurances: [{ insurance_token: 'nosuchinsurance' }, { insurance_token: theirInsurance }, { cardholder_id: 'NEW1', rx_bin: '610014' }],
      replacement_order: productionRequest.data!.request_id,
    });
    expect((error as any).validation_errors).toEqual([
      { key: 'insurances.0.insurance_token', message: 'does not exist' },
      { key: 'insurances.1.insurance_token', message: 'does not exist' },
      { key: 'replacement_order', message: 'does not exist' },
    ]);
    // Atomic: no insurance record, no fill, no request were written.
    expect(await countRows('insurances', patient)).toBe(0);
    expect(await countRows('fill_requests', patient)).toBe(0);
    expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: 90, date_filled_utc: null });

    const replacing = await submit({ ...cashBody(other.patient, [other.rx.token]), replacement_order: elsewhere.data!.request_id });
    expect(replacing.response.status).toBe(201);
  });

  it('writes nothing when a fill fails inside the unit of work', async () => {
    const { patient, rx } = await patientWithPrescription();
    const last = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, {
      refills_remaining: 1,
      date_filled_utc: '2026-01-05T00:00:00.000Z',
    });
    const body = {
      ...cashBody(patient, [rx.token, last.token]),
      patient_payment_type: 'insurance',
      insurances: [{ cardholder_id: 'ATOMIC1', rx_bin: '610014' }],
    };
    // Two racing requests for the same last refill: the loser fails on its second fill, after
    // its insurance record and its first fill were written, and must leave none of them.
    const answers = await Promise.all([submit(body), submit(body)]);
    expect(answers.map((a) => a.response.status).sort()).toEqual([201, 400]);
    expect(await countRows('insurances', patient)).toBe(1);
    expect(await countRows('copay_requests', patient)).toBe(2);
    expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: 60 });
  });
});

describe('a fill that fails inside the unit of work', () => {
  it('rolls back the insurance record, the earlier fills and the request', async () => {
    const { patient, rx } = await patientWithPrescription();
    const last = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, {
      refills_remaining: 1,
      date_filled_utc: '2026-01-05T00:00:00.000Z',
    });
    const db = t.database.handle.db;
    const inner = new SimpleTransactor(db);
    // A concurrent fill takes the last refill after the checks passed, just before the unit of work.
    const racing: Transactor = {
      async run(work) {
        await db.updateTable('prescriptions').set({ refills_remaining: 0 }).where('token', '=', last.token).execute();
        return inner.run(work);
      },
    };
    const { patients, prescriptions, insurances, copayRequests } = t.app.services;
    const service = new FillRequestService(new FillRequestRepository(db), new UnitsOfWork(racing), patients, prescriptions, insurances, copayRequests);
    const body = {
      ...cashBody(patient, [rx.token, last.token]),
      patient_payment_type: 'insurance',
      insurances: [{ cardholder_id: 'ROLLBACK1', rx_bin: '610014' }],
    };
    await expect(service.create({ customerId: acme.customer_id, environment: 'sandbox' }, body as never, 'test')).rejects.toMatchObject({
      statusCode: 400,
      body: { validation_errors: [{ key: 'medications.1.prescription_token', message: 'is not fillable: it has no refills remaining' }] },
    });
    expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: 90, date_filled_utc: null });
    expect(await countRows('insurances', patient)).toBe(0);
    expect(await countRows('fill_requests', patient)).toBe(0);
    expect(await countRows('copay_requests', patient)).toBe(0);
  });
});

describe('reading a fill request', () => {
  it('answers 404 for an unknown token or the other environment, and 403 for another customer’s', async () => {
    const { patient, rx } = await patientWithPrescription();
    const { data } = await submit(cashBody(patient, [rx.token]));
    const read = (key: string, url_token: string) =>
      t.client(key).GET('/v1/fill_request/{url_token}', { params: { path: { url_token } } });
    const unknown = await read(acme.sandbox_api_key, 'nosuchrequest');
    expect(unknown.error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Fill request not found.' });
    expect((await read(acme.production_api_key, data!.request_id)).response.status).toBe(404);
    const theirs = await read(globex.sandbox_api_key, data!.request_id);
    expect(theirs.response.status).toBe(403);
    expect(theirs.error).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  });
});

describe('listing fill requests', () => {
  let customer: NewCustomer;
  const tokens: string[] = [];

  beforeAll(async () => {
    customer = await t.customer('Lister');
    const { patient, rx } = await patientWithPrescription({ number_of_refills_allowed: 10, refills_remaining: 10, quantity_remaining: 1000 }, customer);
    for (let i = 0; i < 5; i++) {
      const { data } = await submit(cashBody(patient, [rx.token], { metadata: i % 2 ? 'odd' : 'even' }), customer.sandbox_api_key);
      tokens.push(data!.request_id);
    }
  });

  const list = (query: Record<string, unknown>, key = customer.sandbox_api_key) =>
    t.client(key).GET('/v1/fill_requests', { params: { query: query as never } });

  it('pages through the customer’s requests, earliest first', async () => {
    const seen: string[] = [];
    let next: string | undefined;
    do {
      const { data, response } = await list({ limit: 2, ...(next ? { next } : {}) });
      expect(response.status).toBe(200);
      expect(data!.results.length).toBeLessThanOrEqual(2);
      seen.push(...data!.results.map((r) => r.request_id));
      next = data!.next_page_token ?? undefined;
    } while (next);
    expect(seen).toEqual(tokens);
    const { data } = await list({});
    expect(data!.results[0]).toEqual({
      request_id: tokens[0],
      patient_token: expect.any(String),
      status: 'pending',
      metadata: 'even',
      shipping_method: 'usps_first',
      created_at: expect.any(String),
      order_token: null,
    });
    expect(data!.next_page_token).toBeNull();
  });

  it('filters by metadata and by creation time', async () => {
    const odd = await list({ metadata: 'odd' });
    expect(odd.data!.results.map((r) => r.request_id)).toEqual([tokens[1], tokens[3]]);
    const all = (await list({})).data!.results;
    const third = all[2]!.created_at;
    const since = await list({ created_at: `$gte:${third}` });
    expect(since.data!.results.map((r) => r.request_id)).toEqual(all.filter((r) => r.created_at >= third).map((r) => r.request_id));
    const before = await list({ created_at: `$lt:${third}` });
    expect(before.data!.results.map((r) => r.request_id)).toEqual(all.filter((r) => r.created_at < third).map((r) => r.request_id));
    expect((await list({ created_at: '$gte:2000-01-01' })).data!.results).toHaveLength(5);
    expect((await list({ created_at: '$lt:2000-01-01T00:00:00+02:00' })).data!.results).toHaveLength(0);
  });

  it('answers the same list under the /api/v1 alias', async () => {
    const direct = await list({ metadata: 'even' });
    const aliased = await t.client(customer.sandbox_api_key, { alias: true }).GET('/v1/fill_requests', { params: { query: { metadata: 'even' } } });
    expect(aliased.response.status).toBe(200);
    expect(aliased.data).toEqual(direct.data);
    expect(aliased.data!.results.map((r) => r.request_id)).toEqual([tokens[0], tokens[2], tokens[4]]);
  });

  it('shows nothing of other customers or the other environment', async () => {
    expect((await list({}, customer.production_api_key)).data!.results).toEqual([]);
    const globexList = (await list({ limit: 100 }, globex.sandbox_api_key)).data!.results.map((r) => r.request_id);
    expect(globexList.some((t) => tokens.includes(t))).toBe(false);
  });

  it.each([
    ['a limit over 100', { limit: 101 }, 'limit'],
    ['a limit of zero', { limit: 0 }, 'limit'],
    ['created_at without an operator', { created_at: '2026-01-01' }, 'created_at'],
    ['created_at that is no date', { created_at: '$gte:2026-13-45' }, 'created_at'],
    ['a page token that is not one', { next: 'garbage' }, 'next'],
  ])('refuses %s', async (_name, query, key) => {
    const { error, response } = await list(query);
    expect(response.status).toBe(400);
    expect((error as any).validation_errors.map((e: any) => e.key)).toEqual([key]);
  });
});
