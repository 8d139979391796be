// Pharmacy coverage (GET /v1/pharmacy-coverage): enabled per customer by the operator, and
// answered from the reference data; every expected answer is computed here from the shipped
// reference-data/pharmacy-locations.json by the rule the spec states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coverage } from '../src/admin/reference-data-commands.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { LOCATIONS, type FileLocation } from './support/reference-data.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

interface Plan {
  ship_to_state: string;
  bin: string;
  pcn?: string;
  group_number?: string;
}

const takes = (l: FileLocation, p: Plan) => l.networks.some((n) => n.bin === p.bin && (n.pcn === null || n.pcn === p.pcn) && (n.group === null || n.group === p.group_number));

/** The spec's rule: retail locations licensed for the state; in network, then fewest shipping days, then in the state, then lowest NCPDP id. */
function expectedFor(p: Plan) {
  const [best] = LOCATIONS.filter((l) => !l.specialty && l.licensed_states.includes(p.ship_to_state))
    .map((l) => ({ l, net: takes(l, p) }))
    .sort((a, b) => Number(b.net) - Number(a.net) || a.l.shipping_days - b.l.shipping_days || Number(b.l.address_to_state === p.ship_to_state) - Number(a.l.address_to_state === p.ship_to_state) || (a.l.ncpdpid < b.l.ncpdpid ? -1 : 1));
  if (!best) return undefined;
  const l = best.l;
  return {
    pharmacy_name: l.pharmacy,
    npi: l.npi,
    address: { street_1: l.address_to_street1, street_2: l.address_to_street2, city: l.address_to_city, state: l.address_to_state, zip: l.address_to_zip, phone: l.address_to_phone },
    location_id: l.id,
    ncpdpid: l.ncpdpid,
    ships_to_states: l.licensed_states,
    in_network: best.net,
  };
}

const lookup = (key: string, query: Plan) => t.client(key).GET('/v1/pharmacy-coverage', { params: { query } });

describe('a customer not enabled for coverage lookups', () => {
  it('answers 403, in both environments', async () => {
    for (const key of [acme.sandbox_api_key, acme.production_api_key]) {
      const { response, error } = await lookup(key, { ship_to_state: 'TX', bin: '610014' });
      expect(response.status).toBe(403);
      expect(error).toMatchObject({ statusCode: 403, error: 'Forbidden', message: 'Pharmacy coverage lookups are not enabled for this customer.' });
    }
  });
});

describe('a customer the operator enabled', () => {
  beforeAll(async () => {
    expect(await coverage(t.app.services, ['enable', '--customer', acme.customer_id])).toEqual({ customer_id: acme.customer_id, coverage_enabled: true });
  });

  it('answers the best location for each state and plan, as computed from the reference file', async () => {
    const plans: Plan[] = [
      { ship_to_state: 'TX', bin: '610014', pcn: 'MEDDPRIME' },
      { ship_to_state: 'CA', bin: '004336', pcn: 'ADV', group_number: 'RX1234' },
      { ship_to_state: 'NY', bin: '004336', pcn: 'ADV', group_number: 'OTHER' },
      { ship_to_state: 'FL', bin: '015581', group_number: 'HUMRX01' },
      { ship_to_state: 'WA', bin: '610097', pcn: '9999', group_number: 'OPTUMRX' },
      { ship_to_state: 'IL', bin: '017010', pcn: '0517CIG' },
      { ship_to_state: 'IL', bin: '999999' },
    ];
    for (const plan of plans) {
      const { data, response } = await lookup(acme.sandbox_api_key, plan);
      expect(response.status).toBe(200);
      expect(data).toEqual(expectedFor(plan));
    }
    // An unknown plan is answered by the best out-of-network location.
    expect((await lookup(acme.sandbox_api_key, { ship_to_state: 'IL', bin: '999999' })).data!.in_network).toBe(false);
    expect((await lookup(acme.production_api_key, { ship_to_state: 'TX', bin: '610014', pcn: 'MEDDPRIME' })).data).toEqual(expectedFor({ ship_to_state: 'TX', bin: '610014', pcn: 'MEDDPRIME' }));
  });

  it('answers 404 for a state no location is licensed for', async () => {
    const { response, error } = await lookup(acme.sandbox_api_key, { ship_to_state: 'AK', bin: '610014' });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ statusCode: 404, error: 'Not Found', message: 'No pharmacy location ships to this state.' });
  });

  it('answers 400 for missing or malformed parameters', async () => {
    const missing = await t.client(acme.sandbox_api_key).GET('/v1/pharmacy-coverage', { params: { query: { ship_to_state: 'TX' } as never } });
    expect(missing.response.status).toBe(400);
    expect(missing.error).toMatchObject({ statusCode: 400, error: 'Bad Request', validation_errors: [{ key: 'bin', message: 'is required' }] });
    const bin = await lookup(acme.sandbox_api_key, { ship_to_state: 'TX', bin: '12345' });
    expect(bin.response.status).toBe(400);
    const state = await lookup(acme.sandbox_api_key, { ship_to_state: 'TEX', bin: '610014' });
    expect(state.response.status).toBe(400);
  });

  it('leaves other customers without coverage lookups, and disabling takes them away again', async () => {
    expect((await lookup(globex.sandbox_api_key, { ship_to_state: 'TX', bin: '610014' })).response.status).toBe(403);
    expect(await coverage(t.app.services, ['show', '--customer', globex.customer_id])).toEqual({ customer_id: globex.customer_id, coverage_enabled: false });
    await coverage(t.app.services, ['disable', '--customer', acme.customer_id]);
    expect((await lookup(acme.sandbox_api_key, { ship_to_state: 'TX', bin: '610014' })).response.status).toBe(403);
    await coverage(t.app.services, ['enable', '--customer', acme.customer_id]);
    await expect(coverage(t.app.services, ['enable', '--customer', 'no-such-customer'])).rejects.toThrow('no customer no-such-customer');
  });

  it('answers 401 without a key', async () => {
    const { response } = await t.client().GET('/v1/pharmacy-coverage', { params: { query: { ship_to_state: 'TX', bin: '610014' } } });
    expect(response.status).toBe(401);
  });
});
