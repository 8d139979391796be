// Fill requests refused (createFillRequest): invalid bodies, patients, prescriptions, insurances and
// replacement orders that are not the caller's; a refused or failed request writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { SimpleTransactor, type Transactor } from '../src/db/transactor.js';
import { UnitsOfWork } from '../src/events/unit-of-work.js';
import { FillRequestRepository } from '../src/fill-requests/fill-request-repository.js';
import { FillRequestService } from '../src/fill-requests/fill-request-service.js';
import { cashBody, fillRequestSteps } from './support/fill-request-steps.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

const { patientWithPrescription, submit, readPrescription, countRows } = fillRequestSteps(() => ({ t, acme }));

describe('submitting a fill request', () => {
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
    ['neither medications nor OTC products', { medications: undefined }, [{ key: 'body', message: 'must contain at least one of [medications, otc_products]' }]],
    [
      'an insurance with neither a card nor a token',
      { patient_payment_type: 'insurance', insurances: [{}] },
      [{ key: 'insurances.0', message: 'must contain at least one of [cardholder_id with rx_bin, insurance_token]' }],
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
  /**
   * A fill request of two prescriptions, billed to a new insurance card, whose unit of work runs
   * on the transactor `racing` makes of the test database's and of a hand that takes the second
   * prescription's last refill: answers the hand and what the service's create threw.
   */
  async function raceTheLastRefill(racing: (inner: SimpleTransactor, takeLastRefill: () => Promise<unknown>) => Transactor) {
    const { patient, rx } = await patientWithPrescription();
    const last = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient }, {
      refills_remaining: 1,
      date_filled_utc: '2026-01-05T00:00:00.000Z',
    });
    const db = t.database.handle.db;
    const takeLastRefill = () => db.updateTable('prescriptions').set({ refills_remaining: 0 }).where('token', '=', last.token).execute();
    const { patients, prescriptions, insurances, copayRequests } = t.app.services;
    const units = new UnitsOfWork(racing(new SimpleTransactor(db), takeLastRefill));
    const service = new FillRequestService(new FillRequestRepository(db), units, patients, prescriptions, insurances, copayRequests, t.app.services.scheduledActions, 0.25);
    const body = {
      ...cashBody(patient, [rx.token, last.token]),
      patient_payment_type: 'insurance',
      insurances: [{ cardholder_id: 'ROLLBACK1', rx_bin: '610014' }],
    };
    await expect(service.create({ customerId: acme.customer_id, environment: 'sandbox' }, body as never, 'test')).rejects.toMatchObject({
      statusCode: 400,
      body: { validation_errors: [{ key: 'medications.1.prescription_token', message: 'is not fillable: it has no refills remaining' }] },
    });
    // Nothing of the unit of work is left: not the first fill, the insurance record, the request or its copay request.
    expect(await readPrescription(rx.token)).toMatchObject({ quantity_remaining: 90, date_filled_utc: null });
    expect(await countRows('insurances', patient)).toBe(0);
    expect(await countRows('fill_requests', patient)).toBe(0);
    expect(await countRows('copay_requests', patient)).toBe(0);
  }

  it('rolls back the insurance record, the earlier fills and the request', async () => {
    // A concurrent fill takes the last refill after the checks passed, just before the unit of work.
    await raceTheLastRefill((inner, takeLastRefill) => ({
      async run(work) {
        await takeLastRefill();
        return inner.run(work);
      },
    }));
  });

  it('leaves nothing of an optimistic run whose fill lost the race, and refuses the request on its second run', async () => {
    let runs = 0;
    // On PostgreSQL the first run sends its fills with its inserts and commit (runOptimistic): the
    // refill taken meanwhile makes its second fill change no row, so that run is rolled back whole.
    await raceTheLastRefill((inner, takeLastRefill) => ({
      run: (work) => inner.run(work),
      async runOptimistic(work) {
        await takeLastRefill();
        return inner.runOptimistic((trx) => {
          runs++;
          return work(trx);
        });
      },
    }));
    expect(runs).toBe(t.database.handle.dialect === 'postgres' ? 2 : 1);
  });
});
