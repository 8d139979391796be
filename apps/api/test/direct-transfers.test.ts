import { stringify } from 'qs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { withFailingUnits } from './support/failing-units.js';
import { createPatient } from './support/fixtures.js';
import { pharmacyEnv, thisPharmacy } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
let patient: string;

beforeAll(async () => {
  // The service's own pharmacy (`thisPharmacy`), as published to customers at onboarding.
  t = await startTestApp(pharmacyEnv);
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
  patient = await createPatient(t, acme.sandbox_api_key);
});
afterAll(async () => t?.close());

const prescriber = {
  first_name: 'Alex',
  last_name: 'Smith',
  npi: '1234567893',
  address: {
    name: 'Dr. Alex Smith',
    company: 'Bayview Family Medicine',
    street1: '500 Howard St',
    city: 'San Francisco',
    state: 'CA',
    zip: '94105',
    phone: '4155550123',
  },
};
const transferFrom = {
  name: 'Customer Pharmacy',
  id_number: '0512345',
  pharmacist: 'Pat Lee',
  address: {
    name: 'Customer Pharmacy',
    company: 'Customer Health Inc.',
    street1: '20 Mission St',
    street2: 'Suite 300',
    city: 'San Francisco',
    state: 'CA',
    zip: '94103',
    email: 'pharmacy@customer.example.com',
  },
};
const prescription = {
  medication_name: 'Atorvastatin 20 mg tablet',
  prescribed_ndc: '00071015523',
  days_supply: 30,
  quantity_written: '30',
  quantity_dispensed: '30',
  medication_sig: 'Take 1 tablet by mouth daily',
  refills_left: 4,
  refills_transferred: 4,
  number: 'RX-778812',
  direct_transfer_url: 'https://files.customer.example.com/rx/778812.pdf',
  can_substitute: true,
  written_date: '20251103',
  first_fill_date: '20251105',
  last_fill_date: '20251205',
};

function body(over: Record<string, unknown> = {}) {
  return { patient_token: patient, prescriber, transfer_from: transferFrom, transfer_to: thisPharmacy, prescription, ...over };
}

function submit(key: string, payload: Record<string, unknown>) {
  return t.client(key).POST('/v1/direct_transfer', { body: payload as never });
}

function getDirectTransfer(key: string, token: string, options?: { alias?: boolean }) {
  return t.client(key, options).GET('/v1/direct_transfer/{direct_transfer_token}', { params: { path: { direct_transfer_token: token } } });
}

describe('submitting a direct transfer', () => {
  it('answers a 201 receipt, and the read repeats the submission, pending', async () => {
    const { data, response } = await submit(acme.sandbox_api_key, body());
    expect(response.status).toBe(201);
    const token = data!.details.direct_transfer_id;
    expect(data).toEqual({ request_id: token, timestamp: expect.any(String), status: 'success', details: { direct_transfer_id: token } });

    const read = await getDirectTransfer(acme.sandbox_api_key, token);
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual({
      direct_transfer_token: token,
      status: 'pending',
      patient_token: patient,
      created_at: data!.timestamp,
      prescriber,
      prescriber_token: expect.any(String),
      transfer_from: transferFrom,
      transfer_to: thisPharmacy,
      prescription,
      prescription_token: null,
      rejection_message: null,
    });
  });

  it('accepts a form body with nested fields in bracket notation, typed as in JSON', async () => {
    const encoded = stringify(body({ prescriber: { ...prescriber, npi: '1987654321' } }), { encodeValuesOnly: true });
    expect(encoded).toContain('prescriber[address][street1]=');
    const res = await t.raw('POST', '/v1/direct_transfer', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: encoded,
    });
    expect(res.status).toBe(201);
    const read = await getDirectTransfer(acme.sandbox_api_key, res.json.details.direct_transfer_id);
    expect(read.data!.prescription).toEqual(prescription);
    expect(read.data!.prescription.days_supply).toBe(30);
    expect(read.data!.prescription.can_substitute).toBe(true);
    expect(read.data!.prescriber.address).toEqual(prescriber.address);
  });

  it('accepts a form body with percent-encoded brackets, through the /api/v1 alias', async () => {
    const res = await t.raw('POST', '/api/v1/direct_transfer', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: stringify(body({ prescription: { ...prescription, can_substitute: false } })),
    });
    expect(res.status).toBe(201);
    const read = await getDirectTransfer(acme.sandbox_api_key, res.json.details.direct_transfer_id, { alias: true });
    expect(read.data!.prescription.can_substitute).toBe(false);
  });

  it('accepts the optional fill dates and address parts left out', async () => {
    const { first_fill_date: _f, last_fill_date: _l, ...withoutDates } = prescription;
    const { response } = await submit(acme.sandbox_api_key, body({ prescription: withoutDates }));
    expect(response.status).toBe(201);
  });

  it('recognises this pharmacy in any case and with surrounding white space', async () => {
    const { response } = await submit(
      acme.sandbox_api_key,
      body({ transfer_to: { name: '  platform PHARMACY ', id_number: '0598765', pharmacist: 'morgan reyes' } }),
    );
    expect(response.status).toBe(201);
  });

  it.each([
    ['another pharmacy name', { ...thisPharmacy, name: 'Other Pharmacy' }],
    ['another id number', { ...thisPharmacy, id_number: '0000001' }],
    ['another pharmacist', { ...thisPharmacy, pharmacist: 'Someone Else' }],
  ])('refuses a transfer_to with %s', async (_name, transferTo) => {
    const { error, response } = await submit(acme.sandbox_api_key, body({ transfer_to: transferTo }));
    expect(response.status).toBe(400);
    expect(error).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      validation_errors: [{ key: 'transfer_to', message: 'does not match this pharmacy' }],
    });
  });

  const required = (key: string) => [{ key, message: 'is required' }];
  const refusals: [name: string, over: Record<string, unknown>, expected: unknown[]][] = [
    ['no patient_token', { patient_token: undefined }, required('patient_token')],
    ['no prescriber', { prescriber: undefined }, required('prescriber')],
    ['no transfer_from', { transfer_from: undefined }, required('transfer_from')],
    ['no transfer_to', { transfer_to: undefined }, required('transfer_to')],
    ['no prescription', { prescription: undefined }, required('prescription')],
    ['a prescriber without NPI', { prescriber: { ...prescriber, npi: undefined } }, required('prescriber.npi')],
    ['a prescriber address without company', { prescriber: { ...prescriber, address: { ...prescriber.address, company: undefined } } }, required('prescriber.address.company')],
    ['a transfer_from without pharmacist', { transfer_from: { ...transferFrom, pharmacist: undefined } }, required('transfer_from.pharmacist')],
    ['a transfer_from without address', { transfer_from: { ...transferFrom, address: undefined } }, required('transfer_from.address')],
    ['a transfer_to without id number', { transfer_to: { ...thisPharmacy, id_number: undefined } }, required('transfer_to.id_number')],
    ...(
      [
        'medication_name', 'prescribed_ndc', 'days_supply', 'quantity_written', 'quantity_dispensed', 'medication_sig',
        'refills_left', 'refills_transferred', 'number', 'direct_transfer_url', 'can_substitute', 'written_date',
      ] as const
    ).map((field): [string, Record<string, unknown>, unknown[]] => [
      `a prescription without ${field}`,
      { prescription: { ...prescription, [field]: undefined } },
      required(`prescription.${field}`),
    ]),
    ['an NPI of 9 digits', { prescriber: { ...prescriber, npi: '123456789' } }, [{ key: 'prescriber.npi', message: 'must be 10 digits' }]],
    ['an empty prescriber name', { prescriber: { ...prescriber, first_name: ' ' } }, [{ key: 'prescriber.first_name', message: 'is not allowed to be empty' }]],
    ['a days supply that is no integer', { prescription: { ...prescription, days_supply: '30' } }, [{ key: 'prescription.days_supply', message: 'must be an integer' }]],
    ['a quantity dispensed over 100000', { prescription: { ...prescription, quantity_dispensed: '100000.5' } }, [{ key: 'prescription.quantity_dispensed', message: 'must be a decimal number from 0 to 100000, such as 30 or 2.5' }]],
    ['a quantity dispensed that is no number', { prescription: { ...prescription, quantity_dispensed: '1e15' } }, [{ key: 'prescription.quantity_dispensed', message: 'must be a decimal number from 0 to 100000, such as 30 or 2.5' }]],
    ['a can_substitute that is no boolean', { prescription: { ...prescription, can_substitute: 'yes' } }, [{ key: 'prescription.can_substitute', message: 'must be a boolean' }]],
    ['a written date not written YYYYMMDD', { prescription: { ...prescription, written_date: '03112025' } }, [{ key: 'prescription.written_date', message: 'must be a date as YYYYMMDD' }]],
    ['a written date that is no calendar date', { prescription: { ...prescription, written_date: '20250231' } }, [{ key: 'prescription.written_date', message: 'must be a valid date' }]],
    ['a URL that is no URL', { prescription: { ...prescription, direct_transfer_url: 'not a url' } }, [{ key: 'prescription.direct_transfer_url', message: 'must be a valid uri' }]],
    ['a zip of the wrong form', { transfer_from: { ...transferFrom, address: { ...transferFrom.address, zip: '941' } } }, [{ key: 'transfer_from.address.zip', message: 'must be a ZIP code as 12345 or 12345-6789' }]],
    ['an unknown nested field', { prescription: { ...prescription, strength: '20 mg' } }, [{ key: 'prescription.strength', message: 'is not allowed' }]],
    ['an unknown field', { urgent: true }, [{ key: 'urgent', message: 'is not allowed' }]],
  ];
  it.each(refusals)('refuses %s', async (_name, over, expected) => {
    const { error, response } = await submit(acme.sandbox_api_key, body(over));
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: expected });
  });

  it('answers 404 for an unknown patient', async () => {
    const { error, response } = await submit(acme.sandbox_api_key, body({ patient_token: 'patUnknown123' }));
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' });
  });

  it("refuses another customer's patient", async () => {
    const { error, response } = await submit(globex.sandbox_api_key, body());
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Unauthorized', message: 'Patient does not belong to this customer.' });
  });

  it('finds no patient of the other environment', async () => {
    const { response } = await submit(acme.production_api_key, body());
    expect(response.status).toBe(404);
  });
});

describe('a direct transfer that fails writes nothing', () => {
  const npi = '1555555555';
  async function prescribersWithNpi(customerId: string) {
    return t.database.handle.db.selectFrom('prescribers').select('token').where('customer_id', '=', customerId).where('npi', '=', npi).execute();
  }

  it('records no prescriber when the submission is refused', async () => {
    await submit(acme.sandbox_api_key, body({ prescriber: { ...prescriber, npi }, transfer_to: { ...thisPharmacy, name: 'Elsewhere' } }));
    await submit(acme.sandbox_api_key, body({ prescriber: { ...prescriber, npi }, patient_token: 'patUnknown123' }));
    expect(await prescribersWithNpi(acme.customer_id)).toEqual([]);
  });

  it('rolls back the prescriber with the direct transfer when storing fails midway', async () => {
    await withFailingUnits(t.app.services.directTransfers, t.database.handle.db, async () => {
      const { response } = await submit(acme.sandbox_api_key, body({ prescriber: { ...prescriber, npi } }));
      expect(response.status).toBe(500);
    });
    expect(await prescribersWithNpi(acme.customer_id)).toEqual([]);
    const stored = await t.database.handle.db.selectFrom('direct_transfers').select('token').where('prescriber', 'like', `%${npi}%`).execute();
    expect(stored).toEqual([]);
  });
});

describe('reading a direct transfer', () => {
  let token: string;
  beforeAll(async () => {
    const { data } = await submit(acme.sandbox_api_key, body());
    token = data!.details.direct_transfer_id;
  });

  it('answers 404 for an unknown token', async () => {
    const { error, response } = await getDirectTransfer(acme.sandbox_api_key, 'dtUnknown123');
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Direct transfer not found.' });
  });

  it("refuses another customer's direct transfer with 403", async () => {
    const { error, response } = await getDirectTransfer(globex.sandbox_api_key, token);
    expect(response.status).toBe(403);
    expect(error).toEqual({ statusCode: 403, error: 'Forbidden', message: 'This record belongs to another customer.' });
  });

  it("finds nothing for the caller's own direct transfer of the other environment", async () => {
    const { error, response } = await getDirectTransfer(acme.production_api_key, token);
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ message: 'Direct transfer not found.' });
  });

  it('is served under the /api/v1 alias', async () => {
    const { data, response } = await getDirectTransfer(acme.sandbox_api_key, token, { alias: true });
    expect(response.status).toBe(200);
    expect(data!.direct_transfer_token).toBe(token);
  });
});
