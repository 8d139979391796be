import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { LifecycleError } from '../src/errors.js';
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

/** The pharmacy dispenses the request (as staff or the sandbox would): its order. */
async function dispense(requestId: string) {
  const { order_token } = await t.app.services.units.run('test', (uow) => t.app.services.fillLifecycle.dispense(uow, requestId));
  return { token: order_token };
}


/** Submits a fill request of two prescriptions (one a refill) and OTC products; answers its request_id. */
async function submitted(key = acme.sandbox_api_key, customer = acme, environment: 'sandbox' | 'production' = 'sandbox') {
  const patient = await createPatient(t, key);
  const owner = { customer_id: customer.customer_id, environment, patient_token: patient };
  const first = await insertPrescription(t, owner, { number_of_refills_allowed: 3, refills_remaining: 3, quantity_remaining: 120 });
  const refill = await insertPrescription(t, owner, {
    number_of_refills_allowed: 5,
    refills_remaining: 2,
    quantity_remaining: 45,
    prescribed_quantity: 30,
    date_filled_utc: '2026-01-02T00:00:00.000Z',
    last_filled_date: '2026-03-02T00:00:00.000Z',
  });
  const { data, response } = await t.client(key).POST('/v1/fill_request', {
    body: {
      patient_token: patient,
      patient_payment_type: 'cash',
      medications: [{ prescription_token: first.token }, { prescription_token: refill.token }],
      otc_products: [{ item: 'Vitamin D', quantity: 2 }],
      metadata: 'order-77',
      shipping_method: 'usps_priority',
      ...destination,
    } as never,
  });
  expect(response.status).toBe(201);
  return { requestId: data!.request_id, patient, first, refill };
}

describe('an order, once the pharmacy processes a fill request', () => {
  it('answers what was dispensed: fill numbers, rx numbers and remaining refills, and the request lists it', async () => {
    const { requestId, patient, first, refill } = await submitted();
    const order = await dispense(requestId);
    const { data, response } = await t.client(acme.sandbox_api_key).GET('/v1/order/{token}', { params: { path: { token: order.token } } });
    expect(response.status).toBe(200);
    expect(data).toEqual({
      order_token: order.token,
      request_id: requestId,
      patient_token: patient,
      status: 'pending_shipment',
      date_filled: expect.any(String),
      medications: [
        {
          medication_name: first.medication_name,
          dispensed_medication_name: first.prescribed_written_name,
          requested_medication_name: first.medication_name,
          days_supply: 30,
          quantity: 30,
          fill_number: 0,
          rx_number: first.rx_number,
          total_refills_allowed: 3,
          prescription_token: first.token,
          medication_token: expect.any(String),
          dispensed_ndc: first.prescribed_ndc,
          remaining_refills: { total_remaining_refills: 3, total_quantity_remaining: 90 },
        },
        expect.objectContaining({
          prescription_token: refill.token,
          fill_number: 4,
          quantity: 30,
          total_refills_allowed: 5,
          remaining_refills: { total_remaining_refills: 1, total_quantity_remaining: 15 },
        }),
      ],
      otc_products: [{ item: 'Vitamin D', quantity: 2 }],
      carrier: null,
      tracking_number: null,
      tracking_url: null,
      shipping_method: 'usps_priority',
      metadata: 'order-77',
      created_at: expect.any(String),
    });

    const listed = await t.client(acme.sandbox_api_key).GET('/v1/fill_requests', { params: { query: { metadata: 'order-77' } } });
    expect(listed.data!.results.find((r) => r.request_id === requestId)).toMatchObject({ status: 'filled', order_token: order.token });
    const read = await t.client(acme.sandbox_api_key, { alias: true }).GET('/v1/fill_request/{url_token}', {
      params: { path: { url_token: requestId } },
    });
    expect(read.data!.status).toBe('filled');
    const aliased = await t.client(acme.sandbox_api_key, { alias: true }).GET('/v1/order/{token}', { params: { path: { token: order.token } } });
    expect(aliased.response.status).toBe(200);
    expect(aliased.data).toEqual(data);
  });

  it('is created once: dispensing the same request again is refused and writes nothing', async () => {
    const { requestId } = await submitted();
    const order = await dispense(requestId);
    await expect(dispense(requestId)).rejects.toMatchObject({ code: 'NOT_PENDING' });
    await expect(dispense(requestId)).rejects.toBeInstanceOf(LifecycleError);
    const orders = await t.database.handle.db.selectFrom('orders').select('token').where('fill_request_token', '=', requestId).execute();
    expect(orders).toEqual([{ token: order.token }]);
  });

  it('answers 404 for an unknown order, another customer’s and the other environment’s', async () => {
    const { requestId } = await submitted();
    const order = await dispense(requestId);
    const get = (key: string, token: string) => t.client(key).GET('/v1/order/{token}', { params: { path: { token } } });
    for (const [key, token] of [
      [acme.sandbox_api_key, 'nosuchorder'],
      [globex.sandbox_api_key, order.token],
      [acme.production_api_key, order.token],
    ] as const) {
      const { error, response } = await get(key, token);
      expect(response.status).toBe(404);
      expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Order not found.' });
    }
  });

  it('answers 401 with the order endpoint’s body without a valid key', async () => {
    const { response, error } = await t.client('sk_sandbox_nope').GET('/v1/order/{token}', { params: { path: { token: 'x' } } });
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ error: 'Unauthorized', message: 'Please Send a Valid Api-Key' });
  });
});
