// Listing transfer requests (listTransferRequests) 50 a page, and reading one (getTransferRequest),
// with the outcome the pharmacy records per medication; nothing of other customers or environments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createPatient, insertPrescription, type PatientSuite, startTestAppWithPatient } from './support/fixtures.js';
import { fromPharmacy, transferRequestSteps } from './support/transfer-request-steps.js';

let { t, acme, globex, patient } = {} as PatientSuite;
beforeAll(async () => ({ t, acme, globex, patient } = await startTestAppWithPatient()));
afterAll(async () => t?.close());

const { requestTransfer, getTransfer } = transferRequestSteps(() => t);

describe('listing transfer requests', () => {
  let lister: NewCustomer;
  let created: string[];

  beforeAll(async () => {
    lister = await t.customer('Lister');
    const own = await createPatient(t, lister.sandbox_api_key);
    created = [];
    for (let i = 0; i < 53; i++) {
      const { data } = await requestTransfer(lister.sandbox_api_key, {
        patient_token: own,
        pharmacy_name: 'Corner Drug Store',
        pharmacy_phone: '4155550142',
        medications: [`Medication ${i}`],
      });
      created.push(data!.details.transfer_token);
    }
  });

  async function page(key: string, p?: number) {
    const { data, response } = await t.client(key).GET('/v1/transfer_request', { params: { query: p === undefined ? {} : { page: p } } });
    expect(response.status).toBe(200);
    return data!;
  }

  it('answers 50 per page, earliest first, with each request’s status and medications', async () => {
    const first = await page(lister.sandbox_api_key);
    const second = await page(lister.sandbox_api_key, 1);
    expect(first).toHaveLength(50);
    expect(second).toHaveLength(3);
    const all = [...first, ...second];
    expect(new Set(all.map((item) => item.url_token))).toEqual(new Set(created));
    const times = all.map((item) => item.created_at);
    expect(times).toEqual([...times].sort());
    // Requests created one after the other list in that order (ties in time keep a stable order).
    const byName = all.map((item) => Number(item.transfer_medications[0]!.medication_name.split(' ')[1]));
    for (let i = 1; i < all.length; i++) {
      if (all[i]!.created_at !== all[i - 1]!.created_at) expect(byName[i]).toBeGreaterThan(byName[i - 1]!);
    }
    expect(first[0]).toMatchObject({ status: 'pending', transfer_medications: [{ medication_name: expect.stringMatching(/^Medication \d+$/) }] });
  });

  it('answers an empty array beyond the end', async () => {
    expect(await page(lister.sandbox_api_key, 2)).toEqual([]);
    expect(await page(lister.sandbox_api_key, 1000)).toEqual([]);
  });

  it("lists neither another customer's requests nor the other environment's", async () => {
    const theirs = await page(globex.sandbox_api_key);
    expect(theirs.some((item) => created.includes(item.url_token))).toBe(false);
    expect(await page(lister.production_api_key)).toEqual([]);
  });

  it('is served under the /api/v1 alias', async () => {
    const { data, response } = await t.client(lister.sandbox_api_key, { alias: true }).GET('/v1/transfer_request', { params: { query: { page: 1 } } });
    expect(response.status).toBe(200);
    expect(data).toHaveLength(3);
  });

  it.each([
    ['a negative page', '-1', 'must be greater than or equal to 0'],
    ['a page that is no number', 'abc', 'must be an integer'],
  ])('refuses %s', async (_name, value, message) => {
    const res = await t.raw('GET', `/v1/transfer_request?page=${value}`, { headers: { authorization: `ApiKey ${lister.sandbox_api_key}` } });
    expect(res.status).toBe(400);
    expect(res.json.validation_errors).toEqual([{ key: 'page', message }]);
  });
});

describe('reading a transfer request', () => {
  let token: string;
  beforeAll(async () => {
    const { data } = await requestTransfer(acme.sandbox_api_key, { patient_token: patient, ...fromPharmacy });
    token = data!.details.transfer_token;
  });

  it('answers 404 for an unknown token', async () => {
    const { error, response } = await getTransfer(acme.sandbox_api_key, 'trUnknown123');
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Transfer not found.' });
  });

  it.each([
    ['another customer', () => globex.sandbox_api_key],
    ['the other environment', () => acme.production_api_key],
  ])("finds nothing for %s's key", async (_name, key) => {
    const { error, response } = await getTransfer(key(), token);
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ message: 'Transfer not found.' });
  });

  it('is served under the /api/v1 alias', async () => {
    const { data, response } = await getTransfer(acme.sandbox_api_key, token, { alias: true });
    expect(response.status).toBe(200);
    expect(data![0]!.url_token).toBe(token);
  });

  it('shows the outcome the pharmacy records per medication: a prescription, a rejection, messages', async () => {
    // The pharmacy's own operations record outcomes (a later issue); written here as they will be.
    const db = t.database.handle.db;
    const rx = await insertPrescription(
      t,
      { customer_id: acme.customer_id, patient_token: patient },
      { origin: 'transfer', number_of_refills_allowed: 5, refills_remaining: 3, date_written: '2025-11-03T00:00:00.000Z' },
    );
    const [transferred, rejected] = await db
      .selectFrom('transfer_medications')
      .selectAll()
      .where('transfer_token', '=', token)
      .orderBy('position')
      .execute();
    const now = new Date().toISOString();
    await db
      .updateTable('transfer_medications')
      .set({ status: 'transferred', prescription_token: rx.token, source_last_filled_date: '2025-12-20T00:00:00.000Z', updated_at: now })
      .where('token', '=', transferred!.token)
      .execute();
    await db
      .updateTable('transfer_medications')
      .set({ status: 'rejected', rejection_reason: 'TRANSFER_OTHER_REASON', rejection_reason_other: 'Pharmacy closed.', updated_at: now })
      .where('token', '=', rejected!.token)
      .execute();
    await db
      .insertInto('transfer_messages')
      .values([
        { transfer_token: token, position: 0, message: 'Contacted Corner Drug Store by fax at 4155550143.', created_at: now },
        { transfer_token: token, position: 1, message: 'Corner Drug Store transferred Atorvastatin 20 mg tablet.', created_at: now },
      ])
      .execute();
    await db.updateTable('transfer_requests').set({ status: 'completed', completed_at: now, updated_at: now }).where('token', '=', token).execute();

    const { data } = await getTransfer(acme.sandbox_api_key, token);
    expect(data![0]).toMatchObject({
      status: 'completed',
      messages: ['Contacted Corner Drug Store by fax at 4155550143.', 'Corner Drug Store transferred Atorvastatin 20 mg tablet.'],
      transfer_medications: [
        {
          url_token: transferred!.token,
          rejection_reason: null,
          prescription: {
            url_token: rx.token,
            medication_name: 'Atorvastatin 20 mg tablet',
            prescription_date: '2025-11-03T00:00:00.000Z',
            prescriber: 'Dr. Alex Smith',
            last_filled_date: '2025-12-20T00:00:00.000Z',
            days_supply: '30',
            num_refills_remaining: 3,
            num_refills_filled: '2',
            prescribed_quantity: 30,
            prescribed_written_name: 'Atorvastatin 20 mg tablet',
            prescribed_generic_name: 'Atorvastatin',
          },
        },
        { url_token: rejected!.token, rejection_reason: 'TRANSFER_OTHER_REASON', rejection_reason_other: 'Pharmacy closed.', prescription: null },
      ],
    });
    const list = await t.client(acme.sandbox_api_key).GET('/v1/transfer_request', {});
    expect(list.data!.find((item) => item.url_token === token)?.status).toBe('completed');
  });
});
