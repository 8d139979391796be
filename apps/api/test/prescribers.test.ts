import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { directTransferBody, pharmacyEnv } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  t = await startTestApp(pharmacyEnv);
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
});
afterAll(async () => t?.close());

const address = {
  name: 'Dr. Alex Smith',
  company: 'Bayview Family Medicine',
  street1: '500 Howard St',
  city: 'San Francisco',
  state: 'ca',
  zip: '94105',
  phone: '4155550123',
  email: 'office@bayviewfm.example.com',
};

/** Submits a direct transfer naming this prescriber; answers the prescriber record's token. */
async function prescriberFromDirectTransfer(key: string, prescriber: Record<string, unknown>): Promise<string> {
  const patient = await createPatient(t, key);
  const client = t.client(key);
  const body = directTransferBody(patient);
  const { data, response } = await client.POST('/v1/direct_transfer', {
    body: { ...body, prescriber: { first_name: 'Alex', last_name: 'Smith', npi: '1234567893', address, ...prescriber } } as never,
  });
  expect(response.status).toBe(201);
  const read = await client.GET('/v1/direct_transfer/{direct_transfer_token}', {
    params: { path: { direct_transfer_token: data!.details.direct_transfer_id } },
  });
  return read.data!.prescriber_token;
}

function getPrescriber(key: string, token: string, options?: { alias?: boolean }) {
  return t.client(key, options).GET('/v1/prescriber/{prescriber_token}', { params: { path: { prescriber_token: token } } });
}

describe('prescriber records', () => {
  it('records the prescriber of a direct transfer, readable by its token', async () => {
    const token = await prescriberFromDirectTransfer(acme.sandbox_api_key, { npi: '1111111111' });
    const { data, response } = await getPrescriber(acme.sandbox_api_key, token);
    expect(response.status).toBe(200);
    expect(data).toEqual({
      prescriber_token: token,
      first_name: 'Alex',
      last_name: 'Smith',
      npi: '1111111111',
      dea_number: null,
      address: {
        name: 'Dr. Alex Smith',
        company: 'Bayview Family Medicine',
        street1: '500 Howard St',
        street2: null,
        city: 'San Francisco',
        state: 'CA',
        zip: '94105',
        country: '',
        phone: '4155550123',
        email: 'office@bayviewfm.example.com',
      },
      phone: '4155550123',
      fax: null,
      created_at: expect.any(String),
    });
  });

  it('keeps one record per NPI, whose name and address follow the latest submission', async () => {
    const first = await prescriberFromDirectTransfer(acme.sandbox_api_key, { npi: '2222222222' });
    const before = await getPrescriber(acme.sandbox_api_key, first);
    const again = await prescriberFromDirectTransfer(acme.sandbox_api_key, {
      npi: '2222222222',
      first_name: 'Alexandra',
      address: { name: 'Dr. Alexandra Smith', company: 'Mission Clinic', street1: '1 Valencia St', street2: 'Floor 2', city: 'San Francisco', state: 'CA', zip: '94110' },
    });
    expect(again).toBe(first);
    const { data } = await getPrescriber(acme.sandbox_api_key, first);
    expect(data).toMatchObject({
      first_name: 'Alexandra',
      last_name: 'Smith',
      created_at: before.data!.created_at,
      address: { name: 'Dr. Alexandra Smith', company: 'Mission Clinic', street1: '1 Valencia St', street2: 'Floor 2', zip: '94110', phone: '', email: '' },
      phone: '',
    });
    const other = await prescriberFromDirectTransfer(acme.sandbox_api_key, { npi: '3333333333' });
    expect(other).not.toBe(first);
  });

  it('keeps records apart per customer and per environment, even for the same NPI', async () => {
    const npi = { npi: '4444444444' };
    const acmeSandbox = await prescriberFromDirectTransfer(acme.sandbox_api_key, npi);
    const acmeProduction = await prescriberFromDirectTransfer(acme.production_api_key, npi);
    const globexSandbox = await prescriberFromDirectTransfer(globex.sandbox_api_key, npi);
    expect(new Set([acmeSandbox, acmeProduction, globexSandbox]).size).toBe(3);
  });

  it('is the record a prescription names', async () => {
    const token = await prescriberFromDirectTransfer(acme.sandbox_api_key, { npi: '5555555555' });
    const patient = await createPatient(t, acme.sandbox_api_key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, { prescriber_npi: '5555555555', prescriber_token: token });
    const { data } = await t.client(acme.sandbox_api_key).GET('/v1/prescription/{token}', { params: { path: { token: rx.token } } });
    expect(data!.prescription.prescriber_token).toBe(token);
    expect((await getPrescriber(acme.sandbox_api_key, token)).data!.npi).toBe('5555555555');
  });

  it('is served under the /api/v1 alias', async () => {
    const token = await prescriberFromDirectTransfer(acme.sandbox_api_key, { npi: '6666666666' });
    const { response } = await getPrescriber(acme.sandbox_api_key, token, { alias: true });
    expect(response.status).toBe(200);
  });
});

describe('a prescriber the caller may not read', () => {
  let token: string;
  beforeAll(async () => {
    token = await prescriberFromDirectTransfer(acme.sandbox_api_key, { npi: '7777777777' });
  });

  it.each([
    ['an unknown token', () => acme.sandbox_api_key, 'prbUnknown123'],
    ["another customer's prescriber", () => globex.sandbox_api_key, undefined],
    ["the caller's own prescriber of the other environment", () => acme.production_api_key, undefined],
  ])('answers 404 for %s', async (_name, key, unknown) => {
    const { error, response } = await getPrescriber(key(), unknown ?? token);
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Prescriber.' });
  });

  it('refuses a token that is no token', async () => {
    const res = await t.raw('GET', '/v1/prescriber/a.b', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(res.status).toBe(400);
    expect(res.json.validation_errors[0].key).toBe('prescriber_token');
  });
});
