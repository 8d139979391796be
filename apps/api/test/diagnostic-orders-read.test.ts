// Reading lab orders: one by id (getDiagnosticOrder and the reads of its results and
// rejection), only the caller's; the listing (listDiagnosticOrders) with every filter and
// operator, newest first, paged with a cursor bound to its owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createOrder, getOrder, KITS, physician, shippingAddress, TESTS, UNKNOWN_ID, type DiagnosticOrder } from './support/diagnostic-orders.js';
import { createPatient } from './support/fixtures.js';
import { accessToken } from './support/platform.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
/** Acme's sandbox orders the listing stories filter, by name. */
const orders: Record<string, DiagnosticOrder> = {};

/** What each order is (its test, kit, panels and custom data); made in this order. */
const made: [string, Record<string, unknown>][] = [
  ['thyroid-fp', { test_id: TESTS.thyroid, custom_data_1: 'alpha', custom_data_2: 'x' }], // panels tsh, free_t4
  ['thyroid-ua', { test_id: TESTS.thyroid, kit_id: KITS.upperArm, panels: ['Free thyroxine'], custom_data_1: 'beta' }], // free_t4
  ['a1c', { test_id: TESTS.a1c, custom_data_1: 'gamma', custom_data_3: 'z' }], // hba1c
  ['lipid-ua', { test_id: TESTS.lipid, kit_id: KITS.upperArm, physician, custom_data_2: 'y' }], // lipid_panel
  ['heart-fp', { test_id: TESTS.heart, kit_id: KITS.fingerPrick, physician, panels: ['hba1c'], custom_data_1: 'alpha' }], // hba1c
  ['covid', { test_id: TESTS.covid, custom_data_3: 'ü:1' }], // nasal swab; sars_cov_2_rna
];

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
  const patient = await createPatient(t, acme.sandbox_api_key);
  for (const [name, body] of made) orders[name] = await createOrder(t, acme.sandbox_api_key, { patient_token: patient, address: shippingAddress, ...body });
});
afterAll(async () => t?.close());

const key = () => acme.sandbox_api_key;
const newestFirst = (a: DiagnosticOrder, b: DiagnosticOrder) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);
/** The named orders as the listing answers them: newest first. */
const expected = (...names: string[]) => names.map((name) => orders[name]!).sort(newestFirst);
const all = () => expected(...made.map(([name]) => name));
const list = (query: Record<string, unknown>, apiKey = key()) => t.client(apiKey).GET('/diagnostics/v0/orders', { params: { query: query as never } });
const notFound = { statusCode: 404, error: 'Not Found', message: 'Unable to find Order.' };

describe('one order by id', () => {
  it('answers the order, also for its id in upper case', async () => {
    const order = orders['heart-fp']!;
    expect(await getOrder(t, key(), order.id)).toEqual(order);
    expect(await getOrder(t, key(), order.id.toUpperCase())).toEqual(order);
  });

  type Read = (id: string, headers: Record<string, string>) => ReturnType<TestApp['raw']>;
  const json = { 'content-type': 'application/json' };
  it.each<[string, Read]>([
    ['get', (id, headers) => t.raw('GET', `/diagnostics/v0/orders/${id}`, { headers })],
    ['results (v0)', (id, headers) => t.raw('GET', `/diagnostics/v0/orders/${id}/results`, { headers })],
    ['results (v2)', (id, headers) => t.raw('GET', `/diagnostics/v2/orders/${id}/results`, { headers })],
    ["results (the seed's path)", (id, headers) => t.raw('GET', `/v0/orders/${id}/results`, { headers })],
    ['rejection', (id, headers) => t.raw('GET', `/diagnostics/v0/orders/${id}/rejection`, { headers })],
    ['kit_serial', (id, headers) => t.raw('PUT', `/v0/orders/${id}/kit_serial`, { headers: { ...headers, ...json }, body: JSON.stringify({ kit_serial: 'KT-NOT-MINE-1' }) })],
  ])("%s: another customer's order, the other environment's, and an unknown one are 404 Unable to find Order.", async (_, read) => {
    const order = orders['thyroid-fp']!;
    const callers = {
      'Globex, by API key': { authorization: `ApiKey ${globex.sandbox_api_key}` },
      'Globex, by bearer token': { authorization: `Bearer ${await accessToken(t, globex, 'sandbox')}` },
      "Acme's production key": { authorization: `ApiKey ${acme.production_api_key}` },
    };
    for (const [who, headers] of Object.entries(callers)) {
      const answer = await read(order.id, headers);
      expect([who, answer.status, answer.json]).toEqual([who, 404, notFound]);
    }
    expect((await read(UNKNOWN_ID, { authorization: `ApiKey ${key()}` })).json).toEqual(notFound);
    expect(await getOrder(t, key(), order.id)).toEqual(order);
  });
});

describe('listing orders', () => {
  const T = TESTS;
  it.each<[string, Record<string, unknown>, string[]]>([
    ['no filter', {}, ['thyroid-fp', 'thyroid-ua', 'a1c', 'lipid-ua', 'heart-fp', 'covid']],
    ['test_id $eq', { test_id: `$eq:${T.thyroid}` }, ['thyroid-fp', 'thyroid-ua']],
    ['test_id $eq, in upper case', { test_id: `$eq:${T.thyroid.toUpperCase()}` }, ['thyroid-fp', 'thyroid-ua']],
    ['test_id $lt', { test_id: `$lt:${T.lipid}` }, ['a1c', 'covid']],
    ['test_id $lte', { test_id: `$lte:${T.lipid}` }, ['a1c', 'lipid-ua', 'covid']],
    ['test_id $gt', { test_id: `$gt:${T.thyroid}` }, ['heart-fp']],
    ['test_id $gte', { test_id: `$gte:${T.thyroid}` }, ['thyroid-fp', 'thyroid-ua', 'heart-fp']],
    ['kit_id $eq', { kit_id: `$eq:${KITS.upperArm}` }, ['thyroid-ua', 'lipid-ua']],
    ['kit_id $lt', { kit_id: `$lt:${KITS.upperArm}` }, ['thyroid-fp', 'a1c', 'heart-fp']],
    ['kit_id $lte', { kit_id: `$lte:${KITS.fingerPrick}` }, ['thyroid-fp', 'a1c', 'heart-fp']],
    ['kit_id $gt', { kit_id: `$gt:${KITS.upperArm}` }, ['covid']],
    ['kit_id $gte', { kit_id: `$gte:${KITS.upperArm}` }, ['thyroid-ua', 'lipid-ua', 'covid']],
    ['custom_data_1 $eq', { custom_data_1: '$eq:alpha' }, ['thyroid-fp', 'heart-fp']],
    ['custom_data_1 $eq, another case', { custom_data_1: '$eq:Alpha' }, []],
    ['custom_data_1 $lt', { custom_data_1: '$lt:beta' }, ['thyroid-fp', 'heart-fp']],
    ['custom_data_1 $lte', { custom_data_1: '$lte:beta' }, ['thyroid-fp', 'thyroid-ua', 'heart-fp']],
    ['custom_data_1 $gt', { custom_data_1: '$gt:beta' }, ['a1c']],
    ['custom_data_1 $gte', { custom_data_1: '$gte:beta' }, ['thyroid-ua', 'a1c']],
    ['custom_data_1 $lt, never matching orders without one', { custom_data_1: '$lt:zzz' }, ['thyroid-fp', 'thyroid-ua', 'a1c', 'heart-fp']],
    ['custom_data_2 $eq', { custom_data_2: '$eq:y' }, ['lipid-ua']],
    ['custom_data_2 $gte', { custom_data_2: '$gte:x' }, ['thyroid-fp', 'lipid-ua']],
    ['custom_data_3 $eq', { custom_data_3: '$eq:z' }, ['a1c']],
    ['custom_data_3 $eq, a value with a colon and a non-ASCII letter', { custom_data_3: '$eq:ü:1' }, ['covid']],
    ['custom_data_3 $gt, by code point', { custom_data_3: '$gt:z' }, ['covid']],
    ['panels by code', { panels: ['free_t4'] }, ['thyroid-fp', 'thyroid-ua']],
    ['panels by code, in another case', { panels: ['FREE_T4'] }, ['thyroid-fp', 'thyroid-ua']],
    ['panels by name, in another case', { panels: ['free THYROXINE'] }, ['thyroid-fp', 'thyroid-ua']],
    ['panels by a name two tests share', { panels: ['Hemoglobin A1c'] }, ['a1c', 'heart-fp']],
    ['panels repeated: any of them', { panels: ['tsh', 'sars_cov_2_rna'] }, ['thyroid-fp', 'covid']],
    ['panels no order runs', { panels: ['cortisol'] }, []],
    ['test_id and custom_data_1', { test_id: `$eq:${T.thyroid}`, custom_data_1: '$eq:beta' }, ['thyroid-ua']],
    ['kit_id and panels', { kit_id: `$eq:${KITS.fingerPrick}`, panels: ['hba1c'] }, ['a1c', 'heart-fp']],
    ['panels and custom_data_2', { panels: ['lipid_panel'], custom_data_2: '$eq:y' }, ['lipid-ua']],
    ['test_id, kit_id and custom_data_1', { test_id: `$gte:${T.thyroid}`, kit_id: `$eq:${KITS.fingerPrick}`, custom_data_1: '$eq:alpha' }, ['thyroid-fp', 'heart-fp']],
  ])('%s', async (_, query, names) => {
    const { data, response } = await list(query);
    expect(response.status).toBe(200);
    expect(data!.results.map((o) => o.id)).toEqual(expected(...names).map((o) => o.id));
    expect(data).not.toHaveProperty('nextPageToken');
  });

  it('answers whole orders, as get does', async () => {
    const { data } = await list({ custom_data_2: '$eq:y' });
    expect(data!.results).toEqual([orders['lipid-ua']]);
  });

  it.each([
    [2, [2, 2, 2]],
    [4, [4, 2]],
    [6, [6]],
  ])('pages of %i: every order exactly once, newest first, nextPageToken left out on the last page', async (limit, sizes) => {
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let pageToken: string | undefined;
    do {
      const { data, response } = await list({ limit, ...(pageToken ? { pageToken } : {}) });
      expect(response.status).toBe(200);
      seen.push(...data!.results.map((o) => o.id));
      pageSizes.push(data!.results.length);
      pageToken = data!.nextPageToken;
    } while (pageToken);
    expect(pageSizes).toEqual(sizes);
    expect(seen).toEqual(all().map((o) => o.id));
  });

  it('pages a filtered listing with the same filters', async () => {
    const query = { kit_id: `$eq:${KITS.fingerPrick}`, limit: 2 };
    const first = await list(query);
    expect(first.data!.results.map((o) => o.id)).toEqual(expected('thyroid-fp', 'a1c', 'heart-fp').slice(0, 2).map((o) => o.id));
    const second = await list({ ...query, pageToken: first.data!.nextPageToken });
    expect(second.data!.results.map((o) => o.id)).toEqual(expected('thyroid-fp', 'a1c', 'heart-fp').slice(2).map((o) => o.id));
    expect(second.data).not.toHaveProperty('nextPageToken');
  });

  it("refuses a cursor of another customer's listing, or of the other environment's, with 400", async () => {
    const { data } = await list({ limit: 1 });
    const pageToken = data!.nextPageToken!;
    for (const apiKey of [globex.sandbox_api_key, acme.production_api_key]) {
      const { error, response } = await list({ limit: 1, pageToken }, apiKey);
      expect(response.status).toBe(400);
      expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: [{ key: 'pageToken', message: 'is not a valid page token' }] });
    }
  });

  it('lists none of the orders for another customer or environment', async () => {
    expect((await list({}, globex.sandbox_api_key)).data).toEqual({ results: [] });
    expect((await list({}, acme.production_api_key)).data).toEqual({ results: [] });
  });

  const operatorAndUuid = 'must be an operator and a version-4 UUID, such as $eq:<uuid> (operators $lt, $lte, $eq, $gte, $gt)';
  const operatorAndValue = 'must be an operator and a value, such as $eq:abc (operators $lt, $lte, $eq, $gte, $gt)';
  it.each<[string, string, { key: string; message: string }]>([
    ['a test_id without an operator', `test_id=${TESTS.thyroid}`, { key: 'test_id', message: operatorAndUuid }],
    ['a test_id with an unknown operator', `test_id=$ne:${TESTS.thyroid}`, { key: 'test_id', message: operatorAndUuid }],
    ['a test_id that is not a version-4 UUID', 'test_id=$eq:8daf16d9-65d1-15c6-8f37-fabefbaf42dc', { key: 'test_id', message: operatorAndUuid }],
    ['a kit_id that is not a UUID', 'kit_id=$eq:upper-arm', { key: 'kit_id', message: operatorAndUuid }],
    ['a custom_data_1 without an operator', 'custom_data_1=alpha', { key: 'custom_data_1', message: operatorAndValue }],
    ['a custom_data_2 with an empty value', 'custom_data_2=$eq:', { key: 'custom_data_2', message: operatorAndValue }],
    ['a custom_data_3 with an unknown operator', 'custom_data_3=$like:z', { key: 'custom_data_3', message: operatorAndValue }],
    ['limit 0', 'limit=0', { key: 'limit', message: 'must be greater than or equal to 1' }],
    ['limit 101', 'limit=101', { key: 'limit', message: 'must be less than or equal to 100' }],
    ['a pageToken of other characters', 'pageToken=%21%21', { key: 'pageToken', message: 'must be a page token as answered by the previous page (1 to 512 letters, digits, _, = or -)' }],
    ['a pageToken that does not read', 'pageToken=abc', { key: 'pageToken', message: 'is not a valid page token' }],
  ])('refuses %s with 400', async (_, query, problem) => {
    const { status, json } = await t.raw('GET', `/diagnostics/v0/orders?${query.replaceAll('$', '%24')}`, { headers: { authorization: `ApiKey ${key()}` } });
    expect(status).toBe(400);
    expect(json.validation_errors).toEqual([problem]);
  });
});
