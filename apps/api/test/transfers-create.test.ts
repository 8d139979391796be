// Requesting a transfer (createTransferRequest): the receipt, contact pairs, form bodies, the
// fields it refuses, patients that are not the caller's; a request that fails writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFailingUnits } from './support/failing-units.js';
import { createPatient, type PatientSuite, startTestAppWithPatient } from './support/fixtures.js';
import { fromPharmacy, transferRequestSteps } from './support/transfer-request-steps.js';

let { t, acme, globex, patient } = {} as PatientSuite;
beforeAll(async () => ({ t, acme, globex, patient } = await startTestAppWithPatient()));
afterAll(async () => t?.close());

const { requestTransfer, getTransfer } = transferRequestSteps(() => t);

function form(key: string) {
  return { authorization: `ApiKey ${key}`, 'content-type': 'application/x-www-form-urlencoded' };
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
      [{ key: 'body', message: 'must contain at least one of [pharmacy_name with pharmacy_phone, prescriber_name with prescriber_phone]' }],
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
