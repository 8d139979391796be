// Same-day delivery (issue 15): the real platform's body (`shipping_address`,
// `external_location` in full or as `{ncpdpid, distance_from_origin}`, `prescription_tokens`,
// `insurance_tokens`, `delivery_instruction`), every validation rule, the list (status filter,
// cursor paging), the read, another customer's orders invisible, and the production courier
// lifecycle driven by staff (the lifecycle in a unit of work, and `pnpm admin same-day`).
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import type { PharmacyLocation, PharmacyLocationDirectory } from '../src/pharmacy-locations/pharmacy-location.js';
import { randomToken } from '../src/tokens.js';
import { eventProblems } from './support/event-schemas.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { pharmacyEnv } from './support/lifecycle-fixtures.js';
import { LOCATIONS } from './support/reference-data.js';
import { staffActions, type StaffActions } from './support/staff-actions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Locations of the reference data, as the directory answers them. */
const SOMA: PharmacyLocation = {
  id: '6f1c2a3e-8b4d-4c9a-9e2f-7a1b2c3d4e5f',
  pharmacy: 'Example Pharmacy - SoMa',
  npi: '1588667638',
  ncpdpid: '0512345',
  address_to_street1: '2 Mission St',
  address_to_street2: 'Suite 100',
  address_to_city: 'San Francisco',
  address_to_state: 'CA',
  address_to_zip: '94105',
  address_to_country: 'US',
  address_to_phone: '+14155550177',
  address_to_fax: null,
  latitude: 37.7925,
  longitude: -122.3969,
  same_day: true,
};
const NO_COURIERS: PharmacyLocation = { ...SOMA, id: '0b2d4f6a-1c3e-4a5b-8c7d-9e0f1a2b3c4d', pharmacy: 'Example Pharmacy - Mail Order', ncpdpid: '0599999', same_day: false };
const directory: PharmacyLocationDirectory = {
  findById: async (id) => [SOMA, NO_COURIERS].find((l) => l.id === id),
  findByNcpdpid: async (ncpdpid) => [SOMA, NO_COURIERS].find((l) => l.ncpdpid === ncpdpid),
};

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
let staff: StaffActions;
let shipped: PharmacyLocationDirectory;

beforeAll(async () => {
  t = await startTestApp({ ...pharmacyEnv });
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
  staff = staffActions(t, acme.customer_id);
  // The reference data's directory is another area's; these tests name their own locations
  // (one test below uses the shipped reference data through the registered directory).
  shipped = t.app.services.pharmacyLocations;
  (t.app.services.sameDayDeliveries as unknown as { locations: PharmacyLocationDirectory }).locations = directory;
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;

const shippingAddress = {
  name: 'Jane Doe',
  street1: '1 Market St',
  street2: 'Apt 4B',
  city: 'San Francisco',
  state: 'CA',
  zip: '94107',
  country: 'US',
  phone: '4155550100',
  email: 'jane.doe@example.com',
};

/** A full location as a lookup answers it, in the real platform's shape. */
const fullLocation = (over: Record<string, unknown> = {}) => ({
  id: SOMA.id,
  pharmacy: SOMA.pharmacy,
  npi: SOMA.npi,
  address_to_street1: SOMA.address_to_street1,
  address_to_street2: SOMA.address_to_street2,
  address_to_city: SOMA.address_to_city,
  address_to_state: SOMA.address_to_state,
  address_to_zip: SOMA.address_to_zip,
  address_to_country: SOMA.address_to_country,
  address_to_phone: SOMA.address_to_phone,
  address_to_fax: null,
  ...over,
});

/** A production patient of Acme's with one fillable prescription. */
async function patientWithRx(apiKey = key(), customer = acme, environment: 'production' | 'sandbox' = 'production') {
  const patient = await createPatient(t, apiKey);
  const rx = await insertPrescription(t, { customer_id: customer.customer_id, environment, patient_token: patient });
  return { patient, rx: rx.token };
}

async function insertInsurance(patient: string, customer = acme): Promise<string> {
  const token = randomToken();
  await t.database.handle.db
    .insertInto('insurances')
    .values({ token, customer_id: customer.customer_id, environment: 'production', patient_token: patient, cardholder_id: 'W123456789', rx_bin: '610014', rx_group: 'RX1234', pcn: 'MEDDPRIME', phone_number: null, insurance_card_image_url: null, created_at: new Date().toISOString() } as never)
    .execute();
  return token;
}

function body(patient: string, rx: string, over: Record<string, unknown> = {}) {
  return { patient_token: patient, prescription_tokens: [rx], shipping_address: shippingAddress, external_location: { ncpdpid: SOMA.ncpdpid, distance_from_origin: 0.84 }, ...over };
}

async function create(payload: Record<string, unknown>, apiKey = key()) {
  return t.client(apiKey).POST('/v1/same_day_delivery', { body: payload as never });
}

async function createOk(payload: Record<string, unknown>, apiKey = key()) {
  const { data, response } = await create(payload, apiKey);
  expect(response.status).toBe(201);
  return data!;
}

async function count(): Promise<number> {
  const row = await t.database.handle.db.selectFrom('same_day_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/same_day_delivery', () => {
  it('accepts a body shaped as the real platform publishes it: a known full location is used as the reference data holds it', async () => {
    const { patient, rx } = await patientWithRx();
    const insurance = await insertInsurance(patient);
    const before = await t.database.handle.db.selectFrom('prescriptions').selectAll().where('token', '=', rx).executeTakeFirstOrThrow();
    const order = await createOk({
      patient_token: patient,
      prescription_tokens: [rx],
      shipping_address: shippingAddress,
      // A stale copy of the location: the reference data's values win.
      external_location: fullLocation({ pharmacy: 'Old name', address_to_street2: null }),
      insurance_tokens: [insurance],
      delivery_instruction: 'Buzz 4B; leave with the front desk if no answer.',
    });
    expect(order).toMatchObject({
      status: 'PENDING',
      status_reason: null,
      patient_token: patient,
      prescription_tokens: [rx],
      insurance_tokens: [insurance],
      shipping_address: shippingAddress,
      external_location: { id: SOMA.id, pharmacy: SOMA.pharmacy, ncpdpid: SOMA.ncpdpid, address_to_street2: 'Suite 100', distance_from_origin: null },
      delivery_instruction: 'Buzz 4B; leave with the front desk if no answer.',
      courier: null,
      tracking_url: null,
      eta: null,
      delivered_at: null,
      metadata: null,
    });
    // Each prescription is filled once, when the order is made.
    const after = await t.database.handle.db.selectFrom('prescriptions').selectAll().where('token', '=', rx).executeTakeFirstOrThrow();
    expect(before.date_filled_utc).toBeNull();
    expect(after.date_filled_utc).not.toBeNull();
    expect(after.quantity_remaining).toBeLessThan(before.quantity_remaining);
  });

  it('accepts a nearby location by ncpdpid (its distance kept), and a full location not in the reference data as given', async () => {
    const { patient, rx } = await patientWithRx();
    const nearby = await createOk(body(patient, rx, { metadata: 'order-1' }));
    expect(nearby.external_location).toMatchObject({ id: SOMA.id, ncpdpid: SOMA.ncpdpid, pharmacy: SOMA.pharmacy, distance_from_origin: 0.84 });
    expect(nearby.metadata).toBe('order-1');

    const other = await patientWithRx();
    const own = fullLocation({ id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', pharmacy: 'Corner Drugs', npi: '1234567893' });
    const given = await createOk(body(other.patient, other.rx, { external_location: own }));
    expect(given.external_location).toEqual({ ...own, ncpdpid: null, distance_from_origin: null });
  });

  it('accepts form bodies (bracketed objects, repeated arrays)', async () => {
    const { patient, rx } = await patientWithRx();
    const form = new URLSearchParams({ patient_token: patient, prescription_tokens: rx, 'external_location[ncpdpid]': SOMA.ncpdpid, 'external_location[distance_from_origin]': '1.5' });
    for (const [k, v] of Object.entries(shippingAddress)) form.set(`shipping_address[${k}]`, v);
    const response = await t.raw('POST', '/v1/same_day_delivery', { headers: { authorization: `ApiKey ${key()}`, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    expect(response.status).toBe(201);
    expect(response.json.external_location.distance_from_origin).toBe(1.5);
  });

  it.each([
    ['patient_token', (b: any) => delete b.patient_token, 'patient_token', 'is required'],
    ['prescription_tokens', (b: any) => delete b.prescription_tokens, 'prescription_tokens', 'is required'],
    ['shipping_address', (b: any) => delete b.shipping_address, 'shipping_address', 'is required'],
    ['external_location', (b: any) => delete b.external_location, 'external_location', 'is required'],
    ['an empty prescription list', (b: any) => (b.prescription_tokens = []), 'prescription_tokens', 'must contain at least 1 items'],
    ['a repeated prescription', (b: any) => (b.prescription_tokens = [b.prescription_tokens[0], b.prescription_tokens[0]]), 'prescription_tokens', expect.any(String)],
    ['the address email', (b: any) => (b.shipping_address = { ...shippingAddress, email: undefined }), 'shipping_address.email', 'is required'],
    ['the address country', (b: any) => (b.shipping_address = { ...shippingAddress, country: undefined }), 'shipping_address.country', 'is required'],
    ['the address name', (b: any) => (b.shipping_address = { ...shippingAddress, name: undefined }), 'shipping_address.name', 'is required'],
    ['a country not served', (b: any) => (b.shipping_address = { ...shippingAddress, country: 'CA' }), 'shipping_address.country', 'must be one of [US]'],
    ['a bad zip', (b: any) => (b.shipping_address = { ...shippingAddress, zip: '941' }), 'shipping_address.zip', 'must be a ZIP code as 12345 or 12345-6789'],
    ['a bad email', (b: any) => (b.shipping_address = { ...shippingAddress, email: 'jane' }), 'shipping_address.email', 'must be a valid email'],
    [
      'an empty location',
      (b: any) => (b.external_location = {}),
      'external_location',
      'must contain at least one of [id with pharmacy with npi with address_to_street1 with address_to_city with address_to_state with address_to_zip with address_to_country, ncpdpid]',
    ],
    ['a bad ncpdpid', (b: any) => (b.external_location = { ncpdpid: '12' }), 'external_location.ncpdpid', 'must be 7 digits'],
    ['a negative distance', (b: any) => (b.external_location = { ncpdpid: SOMA.ncpdpid, distance_from_origin: -1 }), 'external_location.distance_from_origin', 'must be greater than or equal to 0'],
    ['a location id that is no UUID v4', (b: any) => (b.external_location = fullLocation({ id: 'loc-1' })), 'external_location.id', expect.stringMatching(/^must be a version-4 UUID/)],
    ['a 9-digit NPI', (b: any) => (b.external_location = fullLocation({ npi: '158866763' })), 'external_location.npi', 'must be 10 digits'],
    ['a lower-case state', (b: any) => (b.external_location = fullLocation({ address_to_state: 'ca' })), 'external_location.address_to_state', 'must be 2 upper-case letters'],
    ['a location without its street', (b: any) => (b.external_location = fullLocation({ address_to_street1: undefined })), 'external_location.address_to_street1', 'is required'],
    ['a long instruction', (b: any) => (b.delivery_instruction = 'x'.repeat(281)), 'delivery_instruction', 'length must be less than or equal to 280 characters long'],
    ['an unknown field', (b: any) => (b.address = shippingAddress), 'address', 'is not allowed'],
  ])('refuses %s', async (_what, change, key_, message) => {
    const { patient, rx } = await patientWithRx();
    const payload: any = JSON.parse(JSON.stringify(body(patient, rx)));
    change(payload);
    const before = await count();
    const { error, response } = await create(payload);
    expect(response.status).toBe(400);
    expect((error as any).validation_errors).toContainEqual({ key: key_, message });
    expect(await count()).toBe(before);
  });

  it('refuses an unknown ncpdpid, and a location that offers no same-day delivery', async () => {
    const { patient, rx } = await patientWithRx();
    const unknown = await create(body(patient, rx, { external_location: { ncpdpid: '0000001' } }));
    expect(unknown.response.status).toBe(400);
    expect((unknown.error as any).validation_errors).toEqual([{ key: 'external_location.ncpdpid', message: 'does not exist' }]);
    const mail = await create(body(patient, rx, { external_location: { ncpdpid: NO_COURIERS.ncpdpid } }));
    expect((mail.error as any).validation_errors).toEqual([{ key: 'external_location.ncpdpid', message: 'does not offer same-day delivery' }]);
    const mailById = await create(body(patient, rx, { external_location: fullLocation({ id: NO_COURIERS.id }) }));
    expect((mailById.error as any).validation_errors).toEqual([{ key: 'external_location.id', message: 'does not offer same-day delivery' }]);
  });

  it("refuses prescriptions that are unknown, another patient's, another customer's or not fillable, and insurances not the patient's; nothing is written", async () => {
    const { patient, rx } = await patientWithRx();
    const other = await patientWithRx();
    const globexRx = await patientWithRx(globex.production_api_key, globex);
    const expired = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: patient }, { expiration_date_utc: '2020-01-01T00:00:00.000Z' });
    const sandboxRx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'sandbox', patient_token: patient });
    const otherInsurance = await insertInsurance(other.patient);
    const before = await count();
    const { error, response } = await create(
      body(patient, rx, { prescription_tokens: [rx, 'unknownRx0001', other.rx, globexRx.rx, expired.token, sandboxRx.token], insurance_tokens: [otherInsurance] }),
    );
    expect(response.status).toBe(400);
    expect((error as any).validation_errors).toEqual([
      { key: 'prescription_tokens.1', message: 'does not exist' },
      { key: 'prescription_tokens.2', message: 'does not belong to this patient' },
      { key: 'prescription_tokens.3', message: 'does not exist' },
      { key: 'prescription_tokens.4', message: expect.stringMatching(/^is not fillable/) },
      { key: 'prescription_tokens.5', message: 'does not exist' },
      { key: 'insurance_tokens.0', message: 'does not exist' },
    ]);
    expect(await count()).toBe(before);
    const untouched = await t.database.handle.db.selectFrom('prescriptions').select('date_filled_utc').where('token', '=', rx).executeTakeFirstOrThrow();
    expect(untouched.date_filled_utc).toBeNull();
  });

  it("answers 404 for an unknown patient and 400 Unauthorized for another customer's", async () => {
    const { rx } = await patientWithRx();
    const unknown = await create(body('unknownPatient01', rx));
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ message: 'Unable to find Patient.' });
    const globexPatient = await createPatient(t, globex.production_api_key);
    const foreign = await create(body(globexPatient, rx));
    expect(foreign.response.status).toBe(400);
    expect(foreign.error).toMatchObject({ error: 'Unauthorized' });
  });

  it('answers a retry with the same Idempotency-Key from the first answer, creating one order', async () => {
    const { patient, rx } = await patientWithRx();
    const idempotencyKey = `sdd-${randomToken(8)}`;
    const send = () => t.client(key()).POST('/v1/same_day_delivery', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: body(patient, rx) as never });
    const before = await count();
    const first = await send();
    const again = await send();
    expect(first.response.status).toBe(201);
    expect(again.response.status).toBe(201);
    expect(again.data).toEqual(first.data);
    expect(await count()).toBe(before + 1);
  });

  it('needs an API key', async () => {
    const { response } = await t.client().POST('/v1/same_day_delivery', { body: {} as never });
    expect(response.status).toBe(401);
  });
});

describe('with the shipped reference data (the registered PharmacyLocationDirectory)', () => {
  it('resolves a same-day location by ncpdpid and by id, and refuses an unknown ncpdpid', async () => {
    const service = t.app.services.sameDayDeliveries as unknown as { locations: PharmacyLocationDirectory };
    service.locations = shipped;
    try {
      const known = LOCATIONS.find((l) => l.same_day)!;
      const { patient, rx } = await patientWithRx();
      const byNcpdp = await createOk(body(patient, rx, { external_location: { ncpdpid: known.ncpdpid, distance_from_origin: 2.5 } }));
      expect(byNcpdp.external_location).toMatchObject({ id: known.id, pharmacy: known.pharmacy, npi: known.npi, ncpdpid: known.ncpdpid, address_to_zip: known.address_to_zip, distance_from_origin: 2.5 });
      const other = await patientWithRx();
      const byId = await createOk(body(other.patient, other.rx, { external_location: fullLocation({ id: known.id, pharmacy: 'Stale name' }) }));
      expect(byId.external_location).toMatchObject({ id: known.id, pharmacy: known.pharmacy, ncpdpid: known.ncpdpid });
      const unknownNcpdpid = ['0000000', '9999999', '1234567'].find((n) => !LOCATIONS.some((l) => l.ncpdpid === n))!;
      const unknown = await create(body(patient, rx, { external_location: { ncpdpid: unknownNcpdpid } }));
      expect((unknown.error as any).validation_errors).toEqual([{ key: 'external_location.ncpdpid', message: 'does not exist' }]);
    } finally {
      service.locations = directory;
    }
  });
});

describe('GET /v1/same_day_delivery and /v1/same_day_delivery/{id}', () => {
  it('lists newest first, by status, in pages of `limit` (default 20, 1 to 1000)', async () => {
    const lister = await t.customer('Lister');
    const lkey = lister.production_api_key;
    (t.app.services.sameDayDeliveries as unknown as { locations: PharmacyLocationDirectory }).locations = directory;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { patient, rx } = await patientWithRx(lkey, lister);
      ids.push((await createOk(body(patient, rx, { metadata: `order-${i}` }), lkey)).id);
    }
    await t.app.services.units.run('test', (uow) => t.app.services.sameDayLifecycle.assignCourier(uow, ids[1]!, { company: 'Example Courier' }));
    await t.app.services.units.run('test', (uow) => t.app.services.sameDayLifecycle.assignCourier(uow, ids[3]!, { company: 'Example Courier' }));

    const client = t.client(lkey);
    const all = await client.GET('/v1/same_day_delivery', {});
    expect(all.data!.results.map((r) => r.metadata)).toEqual(['order-4', 'order-3', 'order-2', 'order-1', 'order-0']);
    expect(all.data!.next_page_token).toBeNull();

    const seen: string[] = [];
    let next: string | undefined;
    do {
      const page = await client.GET('/v1/same_day_delivery', { params: { query: { limit: 2, ...(next ? { next_page_token: next } : {}) } } });
      expect(page.response.status).toBe(200);
      expect(page.data!.results.length).toBeLessThanOrEqual(2);
      seen.push(...page.data!.results.map((r) => r.id));
      next = page.data!.next_page_token ?? undefined;
    } while (next);
    expect(seen).toEqual([...ids].reverse());

    const awaiting = await client.GET('/v1/same_day_delivery', { params: { query: { status: 'AWAITING_PICKUP', limit: 1 } } });
    expect(awaiting.data!.results.map((r) => r.id)).toEqual([ids[3]]);
    const second = await client.GET('/v1/same_day_delivery', { params: { query: { status: 'AWAITING_PICKUP', limit: 1, next_page_token: awaiting.data!.next_page_token! } } });
    expect(second.data).toMatchObject({ results: [{ id: ids[1], status: 'AWAITING_PICKUP', courier: { company: 'Example Courier', name: null, phone: null } }], next_page_token: null });
    const pending = await client.GET('/v1/same_day_delivery', { params: { query: { status: 'PENDING' } } });
    expect(pending.data!.results.map((r) => r.id)).toEqual([ids[4], ids[2], ids[0]]);
    const delivered = await client.GET('/v1/same_day_delivery', { params: { query: { status: 'DELIVERED' } } });
    expect(delivered.data).toEqual({ results: [], next_page_token: null });
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 1001 }, 'limit'],
    [{ status: 'LOST' }, 'status'],
    [{ next_page_token: 'not-a-token' }, 'next_page_token'],
  ])('refuses %j', async (query, key_) => {
    const { response, error } = await t.client(key()).GET('/v1/same_day_delivery', { params: { query: query as never } });
    expect(response.status).toBe(400);
    expect((error as any).validation_errors[0].key).toBe(key_);
  });

  it('refuses a page token of another status or another customer', async () => {
    for (let i = 0; i < 2; i++) {
      const { patient, rx } = await patientWithRx();
      await createOk(body(patient, rx));
    }
    const page = await t.client(key()).GET('/v1/same_day_delivery', { params: { query: { limit: 1 } } });
    const token = page.data!.next_page_token!;
    const otherStatus = await t.client(key()).GET('/v1/same_day_delivery', { params: { query: { status: 'PENDING', next_page_token: token } } });
    expect(otherStatus.response.status).toBe(400);
    const otherCustomer = await t.client(globex.production_api_key).GET('/v1/same_day_delivery', { params: { query: { next_page_token: token } } });
    expect(otherCustomer.response.status).toBe(400);
  });

  it("reads an order; another customer's, the other environment's and unknown ids answer 404 and are not listed", async () => {
    const { patient, rx } = await patientWithRx();
    const order = await createOk(body(patient, rx));
    const read = await t.client(key()).GET('/v1/same_day_delivery/{id}', { params: { path: { id: order.id } } });
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(order);

    for (const [apiKey, id] of [[globex.production_api_key, order.id], [acme.sandbox_api_key, order.id], [key(), 'unknownOrder0001']] as const) {
      const other = await t.client(apiKey).GET('/v1/same_day_delivery/{id}', { params: { path: { id } } });
      expect(other.response.status).toBe(404);
      expect(other.error).toMatchObject({ message: 'Unable to find Same Day Delivery.' });
    }
    const globexList = await t.client(globex.production_api_key).GET('/v1/same_day_delivery', {});
    expect(globexList.data!.results.map((r) => r.id)).not.toContain(order.id);
    const sandboxList = await t.client(acme.sandbox_api_key).GET('/v1/same_day_delivery', {});
    expect(sandboxList.data!.results.map((r) => r.id)).not.toContain(order.id);
  });
});

describe('the production courier lifecycle, driven by staff', () => {
  const lifecycle = () => t.app.services.sameDayLifecycle;
  const read = async (id: string) => (await t.client(key()).GET('/v1/same_day_delivery/{id}', { params: { path: { id } } })).data!;
  async function newOrder(metadata = 'order-life') {
    const { patient, rx } = await patientWithRx();
    return createOk(body(patient, rx, { metadata }));
  }

  it('assign, pick up, deliver: each move reads back and records a SAME_DAY_DELIVERY event (tokens only)', async () => {
    const order = await newOrder();
    const before = await staff.eventCount();
    await staff.act((uow) => lifecycle().assignCourier(uow, order.id, { company: 'Example Courier', name: 'Sam R.', phone: '4155550199', tracking_url: 'https://track.courier.example.com/d/8f3k2m', eta: '2030-01-15T21:40:00Z' }));
    expect(await read(order.id)).toMatchObject({ status: 'AWAITING_PICKUP', courier: { company: 'Example Courier', name: 'Sam R.', phone: '4155550199' }, tracking_url: 'https://track.courier.example.com/d/8f3k2m', eta: '2030-01-15T21:40:00.000Z' });
    await staff.act((uow) => lifecycle().pickUp(uow, order.id));
    expect((await read(order.id)).status).toBe('IN_TRANSIT');
    await staff.act((uow) => lifecycle().deliver(uow, order.id));
    const delivered = await read(order.id);
    expect(delivered).toMatchObject({ status: 'DELIVERED', eta: null, delivered_at: expect.any(String), status_reason: null });

    const events = await staff.newEvents(before);
    expect(events.map((e) => `${e.callback_type}:${e.status}:${e.details.delivery_status}`)).toEqual([
      'SAME_DAY_DELIVERY:success:AWAITING_PICKUP',
      'SAME_DAY_DELIVERY:success:IN_TRANSIT',
      'SAME_DAY_DELIVERY:success:DELIVERED',
    ]);
    for (const e of events) {
      expect(e.request_id).toBe(order.id);
      expect(e.details).toMatchObject({ id: order.id, patient_token: order.patient_token, prescription_tokens: order.prescription_tokens, metadata: 'order-life' });
      expect(JSON.stringify(e)).not.toContain('Jane');
      expect(JSON.stringify(e)).not.toContain('Market St');
    }
    // The feed lists them too (checked against the spec by the typed client).
    const feed = await t.client(key()).GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
    expect(feed.data!.results.filter((r) => (r.payload as { request_id?: string }).request_id === order.id)).toHaveLength(3);
  });

  it('fails, cancels and delivers incomplete from the statuses that allow it, and refuses the other moves', async () => {
    const failed = await newOrder();
    await staff.act((uow) => lifecycle().fail(uow, failed.id, 'The pharmacy could not prepare the order.'));
    expect(await read(failed.id)).toMatchObject({ status: 'FAILED', status_reason: 'The pharmacy could not prepare the order.' });

    const canceled = await newOrder();
    await staff.act((uow) => lifecycle().assignCourier(uow, canceled.id, { company: 'Example Courier' }));
    await staff.act((uow) => lifecycle().cancel(uow, canceled.id, 'The courier service canceled.'));
    expect(await read(canceled.id)).toMatchObject({ status: 'CANCELED', status_reason: 'The courier service canceled.', eta: null });

    const incomplete = await newOrder();
    await staff.act((uow) => lifecycle().assignCourier(uow, incomplete.id, { company: 'Example Courier' }));
    await staff.act((uow) => lifecycle().pickUp(uow, incomplete.id));
    await expect(staff.act((uow) => lifecycle().cancel(uow, incomplete.id, 'Too late.'))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    const before = await staff.eventCount();
    await staff.act((uow) => lifecycle().deliver(uow, incomplete.id, 'One item was out of stock.'));
    expect(await read(incomplete.id)).toMatchObject({ status: 'INCOMPLETE', status_reason: 'One item was out of stock.', delivered_at: expect.any(String) });
    const [event] = await staff.newEvents(before);
    expect(event).toMatchObject({ callback_type: 'SAME_DAY_DELIVERY', status: 'error', details: { delivery_status: 'INCOMPLETE', status_reason: 'One item was out of stock.' } });

    // Final statuses move no further; a pending order cannot be picked up or delivered.
    await expect(staff.act((uow) => lifecycle().fail(uow, failed.id, 'Again.'))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    const pending = await newOrder();
    await expect(staff.act((uow) => lifecycle().pickUp(uow, pending.id))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    await expect(staff.act((uow) => lifecycle().deliver(uow, pending.id))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    await expect(staff.act((uow) => lifecycle().assignCourier(uow, 'unknownOrder0001', { company: 'X' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(staff.act((uow) => lifecycle().fail(uow, pending.id, ' '))).rejects.toMatchObject({ code: 'INVALID' });
    expect((await read(pending.id)).status).toBe('PENDING');
  });

  it('pnpm admin same-day assign|pickup|deliver prints the moves and their events', async () => {
    const order = await newOrder('order-cli');
    async function admin(...args: string[]): Promise<any> {
      const { stdout } = await run(process.execPath, ['bin/admin.mjs', ...args], { cwd: apiRoot, env: { ...process.env, DATABASE_URL: t.database.url, ...pharmacyEnv } });
      const output = JSON.parse(stdout);
      for (const e of output.events ?? []) expect(eventProblems(e.envelope)).toEqual([]);
      return output;
    }
    const assigned = await admin('same-day', 'assign', '--id', order.id, '--courier', 'Example Courier', '--driver', 'Sam R.', '--eta', '2030-01-15T21:40:00Z');
    expect(assigned).toMatchObject({ id: order.id, status: 'AWAITING_PICKUP' });
    expect(assigned.events.map((e: any) => e.envelope.details.delivery_status)).toEqual(['AWAITING_PICKUP']);
    expect((await admin('same-day', 'pickup', '--id', order.id)).status).toBe('IN_TRANSIT');
    expect((await admin('same-day', 'deliver', '--id', order.id)).status).toBe('DELIVERED');
    expect((await read(order.id)).courier).toEqual({ company: 'Example Courier', name: 'Sam R.', phone: null });
    await expect(admin('same-day', 'cancel', '--id', order.id)).rejects.toThrow(/--reason is required/);
  });
});
