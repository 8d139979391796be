import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { withFailingUnits } from './support/failing-units.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
let patient: string;

beforeAll(async () => {
  t = await startTestApp();
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
  patient = await createPatient(t, acme.sandbox_api_key);
});
afterAll(async () => t?.close());

const fromPharmacy = {
  pharmacy_name: 'Corner Drug Store',
  pharmacy_phone: '4155550142',
  pharmacy_fax: '4155550143',
  medications: ['Atorvastatin 20 mg tablet', 'Lisinopril 10 mg tablet'],
  metadata: 'customer-transfer-0042',
  notes: 'Patient prefers generics.',
};

function form(key: string) {
  return { authorization: `ApiKey ${key}`, 'content-type': 'application/x-www-form-urlencoded' };
}

async function requestTransfer(key: string, body: Record<string, unknown>) {
  return t.client(key).POST('/v1/transfer_request', { body: body as never });
}

function getTransfer(key: string, token: string, options?: { alias?: boolean }) {
  return t.client(key, options).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
}

describe('requesting a transfer', () => {
  it('answers a 201 receipt naming the transfer and each requested medication, and the request reads back pending', async () => {
    const { data, response } = await requestTransfer(acme.sandbox_api_key, { patient_token: patient, ...fromPharmacy });
    expect(response.status).toBe(201);
    const details = data!.details;
    expect(data).toMatchObject({ request_id: details.transfer_token, status: 'success' });
    expect(Date.parse(data!.timestamp)).not.toBeNaN();
    expect(details).toMatchObject({ message: 'Transfer request received.', patient_token: patient });
    expect(details.transfer_medications.map((m) => m.medication_name)).toEqual(fromPharmacy.medications);

    const read = await getTransfer(acme.sandbox_api_key, details.transfer_token);
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual([
      {
        created_at: data!.timestamp,
        url_token: details.transfer_token,
        status: 'pending',
        cancel_reason: null,
        cancel_reason_other: null,
        pharmacy_name: 'Corner Drug Store',
        pharmacy_phone: '4155550142',
        prescriber_name: null,
        prescriber_phone: null,
        notes: 'Patient prefers generics.',
        metadata: 'customer-transfer-0042',
        messages: [],
        transfer_medications: details.transfer_medications.map((m) => ({
          url_token: m.transfer_medication_token,
          rejection_reason: null,
          rejection_reason_other: null,
          medication_name: m.medication_name,
          prescription: null,
        })),
      },
    ]);
  });

  it('transfers every prescription when `medications` is omitted: the receipt lists none yet', async () => {
    const { data, response } = await requestTransfer(acme.sandbox_api_key, {
      patient_token: patient,
      prescriber_name: 'Dr. Alex Smith',
      prescriber_phone: '4155550123',
    });
    expect(response.status).toBe(201);
    expect(data!.details.transfer_medications).toEqual([]);
    const read = await getTransfer(acme.sandbox_api_key, data!.details.transfer_token);
    expect(read.data![0]).toMatchObject({ prescriber_name: 'Dr. Alex Smith', pharmacy_name: null, transfer_medications: [] });
  });

  it('accepts both contact pairs at once', async () => {
    const { response } = await requestTransfer(acme.sandbox_api_key, {
      patient_token: patient,
      pharmacy_name: 'Corner Drug Store',
      pharmacy_phone: '4155550142',
      prescriber_name: 'Dr. Alex Smith',
      prescriber_phone: '4155550123',
      prescriber_fax: '4155550124',
    });
    expect(response.status).toBe(201);
  });

  it.each([
    ['repeated keys', 'medications=Atorvastatin&medications=Lisinopril'],
    ['bracket notation', 'medications[0]=Atorvastatin&medications[1]=Lisinopril'],
  ])('accepts a form body with medications in %s, through the /api/v1 alias', async (_name, medications) => {
    const res = await t.raw('POST', '/api/v1/transfer_request', {
      headers: form(acme.sandbox_api_key),
      body: `patient_token=${patient}&prescriber_name=Dr.%20Alex%20Smith&prescriber_phone=4155550123&${medications}`,
    });
    expect(res.status).toBe(201);
    expect(res.json.details.transfer_medications.map((m: { medication_name: string }) => m.medication_name)).toEqual([
      'Atorvastatin',
      'Lisinopril',
    ]);
  });

  it('trims names as sent', async () => {
    const { data } = await requestTransfer(acme.sandbox_api_key, {
      patient_token: patient,
      pharmacy_name: '  Corner Drug Store ',
      pharmacy_phone: '4155550142',
      medications: [' Atorvastatin '],
    });
    expect(data!.details.transfer_medications[0]!.medication_name).toBe('Atorvastatin');
    const read = await getTransfer(acme.sandbox_api_key, data!.details.transfer_token);
    expect(read.data![0]!.pharmacy_name).toBe('Corner Drug Store');
  });

  const required = (key: string) => ({ key, message: 'is required' });
  it.each([
    ['no patient_token', { patient_token: undefined, pharmacy_name: 'Corner', pharmacy_phone: '4155550142' }, [required('patient_token')]],
    [
      'neither contact pair',
      { medications: ['Atorvastatin'] },
      [required('pharmacy_name'), required('pharmacy_phone'), required('prescriber_name'), required('prescriber_phone')],
    ],
    ['half of the pharmacy pair', { pharmacy_name: 'Corner' }, [required('pharmacy_phone')]],
    ['half of the prescriber pair', { prescriber_phone: '4155550123' }, [required('prescriber_name')]],
    [
      'a pharmacy fax without the pharmacy',
      { prescriber_name: 'Dr. Smith', prescriber_phone: '4155550123', pharmacy_fax: '4155550143' },
      [required('pharmacy_name'), required('pharmacy_phone')],
    ],
    ['an empty pharmacy name', { pharmacy_name: '', pharmacy_phone: '4155550142' }, [{ key: 'pharmacy_name', message: 'is not allowed to be empty' }]],
    ['an empty medication list', { pharmacy_name: 'Corner', pharmacy_phone: '4155550142', medications: [] }, [{ key: 'medications', message: 'must contain at least 1 items' }]],
    ['a medication named twice', { pharmacy_name: 'Corner', pharmacy_phone: '4155550142', medications: ['A', 'A'] }, [{ key: 'medications', message: expect.any(String) }]],
    ['a blank medication name', { pharmacy_name: 'Corner', pharmacy_phone: '4155550142', medications: ['  '] }, [{ key: 'medications.0', message: 'is not allowed to be empty' }]],
    ['an unknown field', { pharmacy_name: 'Corner', pharmacy_phone: '4155550142', urgent: true }, [{ key: 'urgent', message: 'is not allowed' }]],
  ])('refuses %s', async (_name, body, expected) => {
    const { error, response } = await requestTransfer(acme.sandbox_api_key, { patient_token: patient, ...body });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: expected });
  });

  it('answers 404 for an unknown patient', async () => {
    const { error, response } = await requestTransfer(acme.sandbox_api_key, { patient_token: 'patUnknown123', ...fromPharmacy });
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' });
  });

  it("refuses another customer's patient", async () => {
    const { error, response } = await requestTransfer(globex.sandbox_api_key, { patient_token: patient, ...fromPharmacy });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Unauthorized', message: 'Patient does not belong to this customer.' });
  });

  it('finds no patient of the other environment', async () => {
    const { response } = await requestTransfer(acme.production_api_key, { patient_token: patient, ...fromPharmacy });
    expect(response.status).toBe(404);
  });
});

describe('a request that fails writes nothing', () => {
  it('leaves no transfer after refusals', async () => {
    const quiet = await t.customer('Quiet');
    const own = await createPatient(t, quiet.sandbox_api_key);
    await requestTransfer(quiet.sandbox_api_key, { patient_token: own, pharmacy_name: 'Corner' });
    await requestTransfer(quiet.sandbox_api_key, { patient_token: 'patUnknown123', ...fromPharmacy });
    await requestTransfer(quiet.sandbox_api_key, { patient_token: patient, ...fromPharmacy });
    const { data } = await t.client(quiet.sandbox_api_key).GET('/v1/transfer_request', {});
    expect(data).toEqual([]);
  });

  it('rolls back the request and its medications together when storing fails midway', async () => {
    const broken = await t.customer('Broken');
    const own = await createPatient(t, broken.sandbox_api_key);
    const db = t.database.handle.db;
    // Every write of the request runs, then the unit of work fails before it commits.
    await withFailingUnits(t.app.services.transfers, db, async () => {
      const { response } = await requestTransfer(broken.sandbox_api_key, { patient_token: own, ...fromPharmacy });
      expect(response.status).toBe(500);
    });
    expect(await db.selectFrom('transfer_requests').select('token').where('patient_token', '=', own).execute()).toEqual([]);
    const orphans = await db
      .selectFrom('transfer_medications')
      .leftJoin('transfer_requests', 'transfer_requests.token', 'transfer_medications.transfer_token')
      .select('transfer_medications.token')
      .where('transfer_requests.token', 'is', null)
      .execute();
    expect(orphans).toEqual([]);
  });
});

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
