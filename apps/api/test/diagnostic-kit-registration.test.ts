// Kits the customer holds: an order made with its kit serial (registerDiagnosticOrder, on the
// real platform's path and the seed's), and the seed's registration of a serial for an
// existing order (registerKitSerial). A physical kit serves one order, whoever's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createOrder, driveOrder, freshSerial, getOrder, KITS, registerOrder, shippingAddress, TESTS, UUID_V4 } from './support/diagnostic-orders.js';
import { eventsOf } from './support/event-schemas.js';
import { createPatient, startTestAppWithPatient } from './support/fixtures.js';
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
const orderCount = async () =>
  Number((await t.database.handle.db.selectFrom('diagnostic_orders').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

type RegisterPath = '/diagnostics/v0/orders/register' | '/v0/orders/register';
const register = (path: RegisterPath, body: Record<string, unknown>, apiKey = key()) => t.client(apiKey).POST(path, { body: body as never });
const putSerial = (orderId: string, serial: string, apiKey = key()) =>
  t.client(apiKey).PUT('/v0/orders/{order_id}/kit_serial', { params: { path: { order_id: orderId } }, body: { kit_serial: serial } });
const kitInUse = { statusCode: 409, error: 'Conflict', message: 'This kit is already registered.' };
const orderHasKit = { statusCode: 409, error: 'Conflict', message: 'A kit is already registered for this order.' };

describe.each<[string, RegisterPath]>([
  ["the real platform's path", '/diagnostics/v0/orders/register'],
  ["the seed's path", '/v0/orders/register'],
])('registering a held kit on %s', (_, path) => {
  it('answers 201 with the order, its kit serial set, at ORDER_SUCCESS, with no address when none was sent', async () => {
    const serial = freshSerial();
    const { data, response } = await register(path, { kit_serial: serial, patient_token: patient, test_id: TESTS.thyroid, kit_id: KITS.upperArm });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({
      id: expect.stringMatching(UUID_V4),
      test: { id: TESTS.thyroid, name: 'Thyroid function' },
      kit: { id: KITS.upperArm, sku: 'KIT-BLD-UA-01', serial },
      status: 'ORDER_SUCCESS',
      patient_token: patient,
      media_ids: [],
    });
    expect(data).not.toHaveProperty('address');
    expect(data!.kit).not.toHaveProperty('shipment');
    expect(await getOrder(t, key(), data!.id)).toEqual(data);
    // Its ORDER_SUCCESS names the kit already.
    const events = (await eventsOf(t.database.handle.db, acme.customer_id)).filter((e) => e.request_id === data!.id);
    expect(events.map((e) => [e.callback_type, e.details.status, e.details.kit_serial])).toEqual([['DIAGNOSTICS_ORDER_SUCCESS', 'ORDER_SUCCESS', serial]]);
  });

  it('answers the address when one is sent', async () => {
    const { data, response } = await register(path, { kit_serial: freshSerial(), patient_token: patient, test_id: TESTS.a1c, address: shippingAddress });
    expect(response.status).toBe(201);
    expect(data!.address).toEqual(shippingAddress);
  });

  it('refuses a serial already registered with 409, for the same customer or another one, writing nothing', async () => {
    const serial = freshSerial();
    await registerOrder(t, key(), { kit_serial: serial, patient_token: patient, test_id: TESTS.thyroid });
    const before = await orderCount();
    const again = await register(path, { kit_serial: serial, patient_token: patient, test_id: TESTS.thyroid });
    expect(again.response.status).toBe(409);
    expect(again.error).toEqual(kitInUse);
    const globexPatient = await createPatient(t, globex.sandbox_api_key);
    const other = await register(path, { kit_serial: serial, patient_token: globexPatient, test_id: TESTS.a1c }, globex.sandbox_api_key);
    expect(other.response.status).toBe(409);
    expect(other.error).toEqual(kitInUse);
    expect(await orderCount()).toBe(before);
  });

  it.each<[string, Record<string, unknown>, unknown[]]>([
    ['without a kit serial', { test_id: TESTS.thyroid }, [{ key: 'kit_serial', message: 'is required' }]],
    ['with a serial of 3 characters', { kit_serial: 'KT1', test_id: TESTS.thyroid }, [{ key: 'kit_serial', message: 'must be 4 to 64 letters, digits or -' }]],
    ['with a specimen (creation only)', { kit_serial: 'KT-SPEC-0001', test_id: TESTS.thyroid, specimen: {} }, [{ key: 'specimen', message: 'is not allowed' }]],
    ['for a test that needs a physician, without one', { kit_serial: 'KT-PHYS-0001', test_id: TESTS.sti }, [{ key: 'physician', message: 'is required' }]],
  ])('refuses an order %s with 400', async (_, body, errors) => {
    const { error, response } = await register(path, { patient_token: patient, ...body });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: errors });
  });
});

describe('registering the kit of an existing order (PUT /v0/orders/{order_id}/kit_serial)', () => {
  const order = () => createOrder(t, key(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress });

  it('answers 200 with the order, its kit serial set; a second serial for it answers 409', async () => {
    const made = await order();
    const serial = freshSerial();
    const { data, response } = await putSerial(made.id, serial);
    expect(response.status).toBe(200);
    expect(data).toEqual({ ...made, kit: { ...made.kit, serial }, updated_at: expect.any(String) });
    expect(Date.parse(data!.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.updated_at));
    expect(await getOrder(t, key(), made.id)).toEqual(data);

    for (const again of [freshSerial(), serial]) {
      const refused = await putSerial(made.id, again);
      expect(refused.response.status).toBe(409);
      expect(refused.error).toEqual(orderHasKit);
    }
    expect((await getOrder(t, key(), made.id)).kit.serial).toBe(serial);
  });

  it('answers 409 for a serial another order holds, and for an order registered with its kit', async () => {
    const holder = await registerOrder(t, key(), { kit_serial: freshSerial(), patient_token: patient, test_id: TESTS.thyroid });
    const made = await order();
    const taken = await putSerial(made.id, holder.kit.serial!);
    expect(taken.response.status).toBe(409);
    expect(taken.error).toEqual(kitInUse);
    expect((await getOrder(t, key(), made.id)).kit).not.toHaveProperty('serial');
    const registered = await putSerial(holder.id, freshSerial());
    expect(registered.response.status).toBe(409);
    expect(registered.error).toEqual(orderHasKit);
  });

  it('makes the order one of a held kit: nothing ships to the patient, its next milestone is shipped to lab; a shipped order answers 409', async () => {
    const made = await order();
    expect((await putSerial(made.id, freshSerial())).response.status).toBe(200);
    const lab = t.app.services.diagnosticLifecycle;
    await expect(t.app.services.units.run('test', (uow) => lab.ship(uow, made.id, { carrier: 'ups', tracking_number: '1Z1', kit_serial: freshSerial() }))).rejects.toThrow(
      /a kit the customer holds: nothing ships to the patient/,
    );
    await t.app.services.units.run('test', (uow) => lab.shipToLab(uow, made.id, { carrier: 'usps', tracking_number: '9400111899223344556677' }));
    expect((await getOrder(t, key(), made.id)).status).toBe('SHIPPED_TO_LAB');

    const shipped = await order();
    await driveOrder(t, shipped.id, 'SHIPPED');
    const refused = await putSerial(shipped.id, freshSerial());
    expect(refused.response.status).toBe(409);
    expect(refused.error).toEqual(orderHasKit);
  });

  it("answers 404 Unable to find Order. for another tenant's order and for the other environment's, and 400 for a malformed serial", async () => {
    const made = await order();
    for (const apiKey of [globex.sandbox_api_key, acme.production_api_key]) {
      const { error, response } = await putSerial(made.id, freshSerial(), apiKey);
      expect(response.status).toBe(404);
      expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Unable to find Order.' });
    }
    const malformed = await putSerial(made.id, 'KT 0001');
    expect(malformed.response.status).toBe(400);
    expect((malformed.error as { validation_errors: { key: string }[] }).validation_errors.map((e) => e.key)).toEqual(['kit_serial']);
    expect((await getOrder(t, key(), made.id)).kit).not.toHaveProperty('serial');
  });
});

describe('one serial sent by three requests at once', () => {
  it('is registered for one order; the other two answer 409', async () => {
    const serial = freshSerial();
    const existing = await createOrder(t, key(), { patient_token: patient, test_id: TESTS.covid, address: shippingAddress });
    const answers = await Promise.all([
      register('/diagnostics/v0/orders/register', { kit_serial: serial, patient_token: patient, test_id: TESTS.thyroid }),
      register('/v0/orders/register', { kit_serial: serial, patient_token: patient, test_id: TESTS.a1c }),
      putSerial(existing.id, serial),
    ]);
    const statuses = answers.map((a) => a.response.status);
    expect(statuses.filter((s) => s === 409)).toHaveLength(2);
    expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(1);
    const holders = await t.database.handle.db.selectFrom('diagnostic_orders').select('id').where('kit_serial', '=', serial).execute();
    expect(holders).toHaveLength(1);
  });
});
