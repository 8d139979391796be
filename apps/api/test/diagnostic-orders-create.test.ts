// Ordering at-home lab kits (createDiagnosticOrder) with an API key or a bearer token, in the
// real platform's body and shape; the rules of an order; safe retries. Kits the customer
// holds (registerDiagnosticOrder, both paths) and the seed's kit registration (registerKitSerial)
// are in diagnostic-kit-registration.test.ts.
import { createPlatformClient } from '@pharmacy/client';
import { contractMiddleware } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createOrder, getOrder, KITS, physician, shippingAddress, TESTS, UNKNOWN_ID, UUID_V4 } from './support/diagnostic-orders.js';
import { createPatient, jane, startTestAppWithPatient } from './support/fixtures.js';
import type { TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
let patient: string;

beforeAll(async () => {
  ({ t, acme, globex, patient } = await startTestAppWithPatient());
});
afterAll(async () => t?.close());

const key = () => acme.sandbox_api_key;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const counts = async () => {
  const db = t.database.handle.db;
  const [orders, events] = await Promise.all([
    db.selectFrom('diagnostic_orders').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { orders: Number(orders.n), events: Number(events.n) };
};

/** A real platform body (`PostOrders`): the patient inline, insurance, a physician in full, kit, panels by name, specimen. */
const realPlatformBody = {
  patient: {
    first_name: 'John',
    last_name: 'Doe',
    dob: '19950503',
    gender: 'unknown',
    email: 'john.doe@example.com',
    phone: '430-304-3949',
    street1: '1234 Main St',
    street2: 'Apt 9B',
    city: 'San Mateo',
    state: 'CA',
    zip: '94401',
  },
  test_id: TESTS.heart,
  kit_id: KITS.fingerPrick,
  panels: ['hemoglobin A1C'],
  address: { name: 'John Doe', street1: '1234 Main St', street2: 'Apt 9B', city: 'San Mateo', state: 'CA', zip: '94401' },
  physician: {
    ...physician,
    facility: 'Bayside Clinic',
    address: '500 El Camino Real',
    city: 'San Mateo',
    state: 'CA',
    zip: '94402',
    phone: '650-555-0100',
    credential: 'MD',
  },
  insurance: { payer_name: 'Acme Health Plan', group_id: '006726', member_id: 'A9321328', bin: '997928' },
  custom_data_1: 'member-48213',
  custom_data_2: 'campaign-7',
  custom_data_3: 'cohort-b',
  specimen: {
    specimenCollectedDate: '2026-01-17',
    questionnaireResponse: [
      { linkId: 'fasting', answer: [{ valueBoolean: true }] },
      { linkId: 'medications', answer: [{ valueCoding: { code: 'N', display: 'No' } }, { valueString: 'none' }] },
    ],
  },
};

describe('ordering a kit', () => {
  it('with an API key, for a patient record: 201 with the order in the real shape, readable by id, and its ORDER_SUCCESS event', async () => {
    const order = await createOrder(t, key(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress });
    expect(order).toEqual({
      id: expect.stringMatching(UUID_V4),
      test: { id: TESTS.thyroid, name: 'Thyroid function' },
      panels: [
        { name: 'Thyroid-stimulating hormone', description: null, code: 'tsh' },
        { name: 'Free thyroxine', description: null, code: 'free_t4' },
      ],
      // The test's first kit; no serial until it ships.
      kit: { id: KITS.fingerPrick, sku: 'KIT-BLD-FP-01' },
      status: 'ORDER_SUCCESS',
      patient: {
        first_name: expect.stringMatching(/^Pat/),
        last_name: 'Doe',
        dob: { day: 31, month: 1, year: 1980 },
        gender: 'female',
        email: jane.email,
        phone: jane.phone,
        street1: jane.street1,
        city: jane.city,
        state: 'CA',
        zip: jane.zip,
      },
      patient_token: patient,
      address: shippingAddress,
      media_ids: [],
      created_at: expect.stringMatching(ISO),
      updated_at: order.created_at,
    });
    expect(await getOrder(t, key(), order.id)).toEqual(order);

    const feed = await t.client(key()).GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
    const events = feed.data!.results.map((r) => r.payload).filter((p) => 'request_id' in p && p.request_id === order.id);
    expect(events).toEqual([
      {
        callback_type: 'DIAGNOSTICS_ORDER_SUCCESS',
        status: 'success',
        request_id: order.id,
        timestamp: expect.any(Number),
        details: {
          order_id: order.id,
          patient_token: patient,
          status: 'ORDER_SUCCESS',
          occurred_at: order.created_at,
          carrier: null,
          tracking_number: null,
          kit_serial: null,
          results_available: false,
          rejection: null,
        },
      },
    ]);
  });

  it('with a bearer token (createPlatformClient): the same order, the customer sandbox order', async () => {
    const platform = createPlatformClient({
      baseUrl: t.baseUrl,
      clientId: acme.sandbox_client_id,
      clientSecret: acme.sandbox_client_secret,
      audience: acme.audience,
      retry: false,
      middleware: [contractMiddleware()],
    });
    const { data, response } = await platform.POST('/diagnostics/v0/orders', {
      body: { patient_token: patient, test_id: TESTS.a1c, address: shippingAddress, custom_data_1: 'by-token' },
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ test: { id: TESTS.a1c, name: 'Hemoglobin A1c' }, kit: { id: KITS.fingerPrick }, custom_data_1: 'by-token', patient_token: patient });
    const read = await platform.GET('/diagnostics/v0/orders/{order_id}', { params: { path: { order_id: data!.id } } });
    expect(read.data).toEqual(data);
    expect(await getOrder(t, key(), data!.id)).toEqual(data);
    const production = await t.client(acme.production_api_key).GET('/diagnostics/v0/orders/{order_id}', { params: { path: { order_id: data!.id } } });
    expect(production.response.status).toBe(404);
  });

  it('takes a real platform body and answers it in the real shape: dob as {day, month, year}, the member id masked, no patient_token', async () => {
    const order = await createOrder(t, key(), realPlatformBody);
    const { dob: _dob, ...inline } = realPlatformBody.patient;
    expect(order).toEqual({
      id: expect.stringMatching(UUID_V4),
      test: { id: TESTS.heart, name: 'Heart health' },
      // Only the panel asked for (by name, in any case), and the kit named (not the test's first).
      panels: [{ name: 'Hemoglobin A1c', description: null, code: 'hba1c' }],
      kit: { id: KITS.fingerPrick, sku: 'KIT-BLD-FP-01' },
      status: 'ORDER_SUCCESS',
      patient: { ...inline, dob: { day: 3, month: 5, year: 1995 } },
      address: realPlatformBody.address,
      physician: realPlatformBody.physician,
      insurance: { payer_name: 'Acme Health Plan', group_id: '006726', member_id: '****1328', bin: '997928' },
      custom_data_1: 'member-48213',
      custom_data_2: 'campaign-7',
      custom_data_3: 'cohort-b',
      specimen: realPlatformBody.specimen,
      media_ids: [],
      created_at: expect.stringMatching(ISO),
      updated_at: order.created_at,
    });
    expect(order).not.toHaveProperty('patient_token');
    expect(await getOrder(t, key(), order.id)).toEqual(order);
    // The insurance is stored sealed: the member id is nowhere in clear.
    const row = await t.database.handle.db.selectFrom('diagnostic_orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
    expect(row.insurance_encrypted).toMatch(/^v2:/);
    expect(JSON.stringify(row)).not.toContain('A9321328');
  });

  it('keeps the patient record as it stood when ordered', async () => {
    const before = await createOrder(t, key(), { patient_token: patient, test_id: TESTS.vitaminD, address: shippingAddress });
    const moved = await t.client(key()).POST('/v1/patient/{patient_token}', { params: { path: { patient_token: patient } }, body: { street1: '9 Mission St' } });
    expect(moved.response.status).toBe(202);
    const after = await createOrder(t, key(), { patient_token: patient, test_id: TESTS.vitaminD, address: shippingAddress });
    expect(after.patient.street1).toBe('9 Mission St');
    expect((await getOrder(t, key(), before.id)).patient.street1).toBe(jane.street1);
  });
});

describe('an order that breaks a rule is refused with 400, keyed by its field, and nothing is written', () => {
  const thyroid = () => ({ patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress });
  const inline = { first_name: 'John', last_name: 'Doe', dob: '19950503', gender: 'male', zip: '94401' };
  const otherPatient = { globex: '', production: '' };
  beforeAll(async () => {
    otherPatient.globex = await createPatient(t, globex.sandbox_api_key);
    otherPatient.production = await createPatient(t, acme.production_api_key);
  });

  it.each<[string, () => Record<string, unknown>, unknown[]]>([
    ['without test_id', () => ({ patient_token: patient, address: shippingAddress }), [{ key: 'test_id', message: 'is required' }]],
    ['without address', () => ({ patient_token: patient, test_id: TESTS.thyroid }), [{ key: 'address', message: 'is required' }]],
    ['with both patient and patient_token', () => ({ ...thyroid(), patient: inline }), [{ key: 'patient', message: 'is not allowed with patient_token' }]],
    ['with neither patient nor patient_token', () => ({ test_id: TESTS.thyroid, address: shippingAddress }), [{ key: 'patient_token', message: 'is required' }]],
    ['for a test the catalogue does not have', () => ({ ...thyroid(), test_id: UNKNOWN_ID }), [{ key: 'test_id', message: 'is not a test of the catalogue' }]],
    ['with a test_id that is not a version-4 UUID', () => ({ ...thyroid(), test_id: '8daf16d9-65d1-15c6-8f37-fabefbaf42dc' }), [{ key: 'test_id', message: expect.stringMatching(/^must be a version-4 UUID/) }]],
    ['with a kit of another test', () => ({ ...thyroid(), kit_id: KITS.urine }), [{ key: 'kit_id', message: `is not a kit of the test (its kits: ${KITS.fingerPrick}, ${KITS.upperArm})` }]],
    ['with a panel that is not the test', () => ({ ...thyroid(), panels: ['cortisol'] }), [{ key: 'panels.0', message: expect.stringContaining('is not a panel of the test') }]],
    ['for a test that needs a physician, without one', () => ({ ...thyroid(), test_id: TESTS.lipid }), [{ key: 'physician', message: 'is required' }]],
    ["with another customer's patient_token", () => ({ ...thyroid(), patient_token: otherPatient.globex }), [{ key: 'patient_token', message: 'is not a known patient' }]],
    ["with the production patient's token, on a sandbox key", () => ({ ...thyroid(), patient_token: otherPatient.production }), [{ key: 'patient_token', message: 'is not a known patient' }]],
    ['with an unknown insurance_token', () => ({ ...thyroid(), insurance_token: 'ins_unknown' }), [{ key: 'insurance_token', message: 'is not a known insurance' }]],
    ['with both insurance and insurance_token', () => ({ ...thyroid(), insurance: realPlatformBody.insurance, insurance_token: 'ins_unknown' }), [{ key: 'insurance', message: 'is not allowed with insurance_token' }]],
    ['with unknown fields', () => ({ test_id: TESTS.thyroid, address: shippingAddress, colour: 'blue', patient: { ...inline, nickname: 'JD' } }), [
      { key: 'colour', message: 'is not allowed' },
      { key: 'patient.nickname', message: 'is not allowed' },
    ]],
    ['breaking several rules at once', () => ({ ...thyroid(), test_id: TESTS.lipid, kit_id: KITS.nasal, patient_token: otherPatient.globex }), [
      { key: 'kit_id', message: `is not a kit of the test (its kits: ${KITS.fingerPrick}, ${KITS.upperArm})` },
      { key: 'physician', message: 'is required' },
      { key: 'patient_token', message: 'is not a known patient' },
    ]],
  ])('%s', async (_, body, errors) => {
    const before = await counts();
    const { error, response } = await t.client(key()).POST('/diagnostics/v0/orders', { body: body() as never });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: errors });
    expect(await counts()).toEqual(before);
  });
});

describe('safe retries', () => {
  it('an Idempotency-Key replays the 201 with the same order, made once; the key with another body answers 422', async () => {
    const idempotencyKey = crypto.randomUUID();
    const send = (body: Record<string, unknown>) =>
      t.client(key()).POST('/diagnostics/v0/orders', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: body as never });
    const body = { patient_token: patient, test_id: TESTS.covid, address: shippingAddress, custom_data_1: 'retry-1' };
    const before = await counts();
    const first = await send(body);
    const retry = await send(body);
    expect(first.response.status).toBe(201);
    expect(retry.response.status).toBe(201);
    expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.data).toEqual(first.data);
    expect(await counts()).toEqual({ orders: before.orders + 1, events: before.events + 1 });

    const other = await send({ ...body, custom_data_1: 'retry-2' });
    expect(other.response.status).toBe(422);
    expect(await counts()).toEqual({ orders: before.orders + 1, events: before.events + 1 });
  });
});
