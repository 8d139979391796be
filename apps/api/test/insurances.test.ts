import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { maskCardholderId } from '../src/insurances/insurance-presenter.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
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

/** Submits an insurance-paid fill request with card fields; answers the insurance record's token. */
async function insuranceFromFillRequest(plan: Record<string, unknown>): Promise<{ token: string; patient: string }> {
  const patient = await createPatient(t, acme.sandbox_api_key);
  const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
  const client = t.client(acme.sandbox_api_key);
  const { data } = await client.POST('/v1/fill_request', {
    body: {
      patient_token: patient,
      patient_payment_type: 'insurance',
      insurances: [plan],
      medications: [{ prescription_token: rx.token }],
      address_to_name: 'Jane Doe',
      address_to_street1: '1 Market St',
      address_to_city: 'San Francisco',
      address_to_state: 'CA',
      address_to_zip: '94107',
      address_to_phone: '4155550100',
      address_to_email: 'jane@example.com',
      patient_survey: {},
    } as never,
  });
  const read = await client.GET('/v1/fill_request/{url_token}', { params: { path: { url_token: data!.request_id } } });
  return { token: read.data!.insurances![0]!.insurance_token!, patient };
}

describe('reading an insurance record', () => {
  it('answers the plan created from a fill request, the cardholder id masked', async () => {
    const plan = {
      cardholder_id: 'ZXC123456789',
      rx_bin: '610014',
      rx_group: 'RX4412',
      pcn: 'MEDDADV',
      phone_number: '8005550199',
      insurance_card_image_url: 'https://files.example.com/cards/1.png',
    };
    const { token, patient } = await insuranceFromFillRequest(plan);
    for (const alias of [false, true]) {
      const { data, response } = await t.client(acme.sandbox_api_key, { alias }).GET('/v1/insurance/{insurance_token}', {
        params: { path: { insurance_token: token } },
      });
      expect(response.status).toBe(200);
      expect(data).toEqual({ ...plan, cardholder_id: '********6789', insurance_token: token, patient_token: patient, created_at: expect.any(String) });
    }
  });

  it('answers null for optional fields that were not given', async () => {
    const { token } = await insuranceFromFillRequest({ cardholder_id: 'AB12', rx_bin: '004336' });
    const { data } = await t.client(acme.sandbox_api_key).GET('/v1/insurance/{insurance_token}', { params: { path: { insurance_token: token } } });
    expect(data).toMatchObject({ cardholder_id: '****', rx_group: null, pcn: null, phone_number: null, insurance_card_image_url: null });
  });

  it.each([
    ['ZXC123456789', '********6789'],
    ['12345', '*2345'],
    ['1234', '****'],
    ['1', '*'],
  ])('masks %s as %s', (id, masked) => {
    expect(maskCardholderId(id)).toBe(masked);
  });

  it('answers 404 for an unknown token, another customer’s record and the other environment’s', async () => {
    const { token } = await insuranceFromFillRequest({ cardholder_id: 'HIDDEN99', rx_bin: '610014' });
    for (const [key, insurance_token] of [
      [acme.sandbox_api_key, 'nosuchinsurance'],
      [globex.sandbox_api_key, token],
      [acme.production_api_key, token],
    ] as const) {
      const { error, response } = await t.client(key).GET('/v1/insurance/{insurance_token}', { params: { path: { insurance_token } } });
      expect(response.status).toBe(404);
      expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Insurance.' });
    }
  });
});
