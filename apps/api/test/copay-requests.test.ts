import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
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


async function fillRequest(body: Record<string, unknown>) {
  const client = t.client(acme.sandbox_api_key);
  const { data, response } = await client.POST('/v1/fill_request', { body: { ...destination, ...body } as never });
  expect(response.status).toBe(201);
  const read = await client.GET('/v1/fill_request/{url_token}', { params: { path: { url_token: data!.request_id } } });
  return read.data!;
}

describe('copay requests', () => {
  it('are opened one per prescription of an insurance-paid request, under the primary plan, and read as pending (202)', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    const owner = { customer_id: acme.customer_id, patient_token: patient };
    const a = await insertPrescription(t, owner, { days_supply: '28', prescribed_quantity: 28 });
    const b = await insertPrescription(t, owner, { days_supply: null, prescribed_quantity: 60, quantity_remaining: 40 });
    const request = await fillRequest({
      patient_token: patient,
      patient_payment_type: 'insurance',
      insurances: [{ cardholder_id: 'PRIMARY1', rx_bin: '610014' }, { cardholder_id: 'SECOND22', rx_bin: '004336' }],
      medications: [{ prescription_token: a.token }, { prescription_token: b.token }],
      otc_products: [{ item: 'Vitamin D', quantity: 1 }],
    });
    const primary = request.insurances![0]!.insurance_token!;
    expect(request.copay_request_ids).toHaveLength(2);
    const reads = await Promise.all(
      request.copay_request_ids.map((request_id) =>
        t.client(acme.sandbox_api_key).GET('/v1/copay_request/{request_id}', { params: { path: { request_id } } }),
      ),
    );
    expect(reads.map((r) => r.response.status)).toEqual([202, 202]);
    expect(reads[0]!.data).toEqual({
      request_id: request.copay_request_ids[0],
      status: 'pending',
      patient_token: patient,
      prescription_token: a.token,
      insurance_token: primary,
      copay_amount: null,
      currency: 'USD',
      days_supply: 28,
      quantity: 28,
      message: null,
      created_at: expect.any(String),
      completed_at: null,
    });
    // Priced for what the fill dispenses (what remained), 30 days when the prescription gives none.
    expect(reads[1]!.data).toMatchObject({ prescription_token: b.token, quantity: 40, days_supply: 30, insurance_token: primary });
  });

  it('are not opened for cash requests or OTC-only requests', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const cash = await fillRequest({ patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: rx.token }] });
    expect(cash.copay_request_ids).toEqual([]);
    const otc = await fillRequest({
      patient_token: patient,
      patient_payment_type: 'insurance',
      insurances: [{ cardholder_id: 'OTC00001', rx_bin: '610014' }],
      otc_products: [{ item: 'Vitamin D', quantity: 1 }],
    });
    expect(otc.copay_request_ids).toEqual([]);
  });

  it('answer 404 for an unknown id, another customer’s and the other environment’s, also under /api/v1', async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const request = await fillRequest({
      patient_token: patient,
      patient_payment_type: 'insurance',
      insurances: [{ cardholder_id: 'NOTYOURS', rx_bin: '610014' }],
      medications: [{ prescription_token: rx.token }],
    });
    const id = request.copay_request_ids[0]!;
    for (const [key, request_id, alias] of [
      [acme.sandbox_api_key, 'nosuchcopay', true],
      [globex.sandbox_api_key, id, false],
      [acme.production_api_key, id, false],
    ] as const) {
      const { error, response } = await t.client(key, { alias }).GET('/v1/copay_request/{request_id}', { params: { path: { request_id } } });
      expect(response.status).toBe(404);
      expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Copay Request.' });
    }
  });
});
