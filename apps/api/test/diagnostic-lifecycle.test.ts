// A production lab order moved on by the operator with `pnpm admin lab ...`, milestone by
// milestone, each recording its DIAGNOSTICS_* event: the kit shipped and delivered, the sample
// returned, the lab's access and results; or the lab's rejection. Actions out of their order
// are refused and change nothing. Lab reports (JSON, CSV, refused ones): diagnostic-lab-reports.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lab as labCommand } from '../src/admin/lab-commands.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import {
  admin,
  adminRefused,
  CALLBACK_TYPE,
  createOrder,
  driveOrder,
  freshSerial,
  getOrder,
  KITS,
  MILESTONES,
  registerOrder,
  resultsOf,
  shippingAddress,
  startProductionLab,
  tempFile,
  TESTS,
  UNKNOWN_ID,
  type DiagnosticOrder,
} from './support/diagnostic-orders.js';
import { createPatient } from './support/fixtures.js';
import type { TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let patient: string;

beforeAll(async () => {
  ({ t, acme, patient } = await startProductionLab());
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;
const lab = (action: string, id: string, ...options: string[]) => admin(t, ['lab', action, '--order', id, ...options]);
const labRefused = (action: string, id: string, ...options: string[]) => adminRefused(t, ['lab', action, '--order', id, ...options]);
/** The same command run in the service's process (for the many refusals: no process to start). */
const labInProcess = (action: string, id: string, ...options: string[]) => labCommand(t.app.services, [action, '--order', id, ...options]);
const order = (body: Record<string, unknown> = {}) => createOrder(t, key(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress, ...body });
/** The order's events in the feed (recording order), each checked against the spec by the typed client. */
async function eventsOf(id: string, apiKey = key()) {
  const { data, response } = await t.client(apiKey).GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
  expect(response.status).toBe(200);
  return data!.results.map((r) => r.payload as { request_id?: string } & Record<string, any>).filter((p) => p.request_id === id);
}
const noResults = { v0: [], v2: [], seed: [] };
const ups = { carrier: 'ups', tracking_number: '1Z999AA10123456784' };
const usps = { carrier: 'usps', tracking_number: '9400111899223344556677' };
const MEDIA = '6F1C2A3B-4D5E-4F60-8A7B-9C0D1E2F3A4B';

describe('an order shipped, returned and resulted through pnpm admin lab', () => {
  const serial = freshSerial('PROD');
  let made: DiagnosticOrder;
  /** When each milestone was reached (its `updated_at`), and its carrier leg. */
  const occurred: string[] = [];
  const legs: ({ carrier: string; tracking_number: string } | null)[] = [null];
  const envelopes: unknown[] = [];

  it('refuses a milestone out of its order, changing nothing', async () => {
    made = await order({ custom_data_1: 'prod-1' });
    occurred.push(made.created_at);
    const { code, stderr } = await labRefused('in-transit', made.id);
    expect(code).toBe(1);
    expect(stderr).toContain(`Order ${made.id} is ORDER_SUCCESS; IN_TRANSIT follows SHIPPED.`);
    expect(await getOrder(t, key(), made.id)).toEqual(made);
    expect((await eventsOf(made.id)).map((e) => e.callback_type)).toEqual(['DIAGNOSTICS_ORDER_SUCCESS']);
  });

  it.each<[string, string, string[], { carrier: string; tracking_number: string } | null]>([
    ['ship', 'SHIPPED', ['--carrier', ups.carrier, '--tracking-number', ups.tracking_number, '--serial', serial], ups],
    ['in-transit', 'IN_TRANSIT', [], ups],
    ['deliver', 'DELIVERED_TO_PATIENT', [], ups],
    ['ship-to-lab', 'SHIPPED_TO_LAB', ['--carrier', usps.carrier, '--tracking-number', usps.tracking_number], usps],
    ['in-transit-to-lab', 'IN_TRANSIT_TO_LAB', [], usps],
    ['deliver-to-lab', 'DELIVERED_TO_LAB', [], usps],
    ['access', 'LAB_ACCESSED_KIT', ['--accession-id', 'ACC-2026-0001'], null],
  ])('lab %s: the order is %s, with its kit and shipments, and no results yet', async (action, status, options, leg) => {
    const out = await lab(action, made.id, ...options);
    expect(out.order).toEqual({ id: made.id, status, kit_serial: serial, updated_at: expect.any(String) });
    expect(out.events.map((e: { envelope: { callback_type: string } }) => e.envelope.callback_type)).toEqual([CALLBACK_TYPE[status as 'SHIPPED']]);
    occurred.push(out.order.updated_at);
    legs.push(leg);
    envelopes.push(out.events[0].envelope);

    const reached = MILESTONES.indexOf(status as 'SHIPPED');
    expect(await getOrder(t, key(), made.id)).toEqual({
      ...made,
      status,
      kit: { ...made.kit, serial, shipment: ups, ...(reached >= MILESTONES.indexOf('SHIPPED_TO_LAB') ? { return_shipment: usps } : {}) },
      ...(status === 'LAB_ACCESSED_KIT' ? { accession_id: 'ACC-2026-0001' } : {}),
      updated_at: out.order.updated_at,
    });
    expect(await resultsOf(t, key(), made.id)).toEqual(noResults);
  });

  it('refuses a report naming a panel the order does not run, whole: nothing is released', async () => {
    const report = tempFile('report.json', JSON.stringify([
      { panel: 'tsh', code: '3016-3', value: 2.1 },
      { panel: 'cortisol', code: '2143-6', value: 12 },
    ]));
    const { code, stderr } = await labRefused('results', made.id, '--file', report);
    expect(code).toBe(1);
    expect(stderr).toContain('Result 2 (cortisol/2143-6): the order runs no panel cortisol.');
    expect((await getOrder(t, key(), made.id)).status).toBe('LAB_ACCESSED_KIT');
    expect(await resultsOf(t, key(), made.id)).toEqual(noResults);
  });

  it('lab results --file <report.json>: RESULTS_AVAILABLE; v0 the results with severities from the ranges, v2 with media_ids, the seed path as v0', async () => {
    const report = tempFile('report.json', JSON.stringify({
      results: [
        { panel: 'tsh', code: '3016-3', value: 5.2, measured_at: '2026-01-20T09:30:00Z' },
        { panel: 'free_t4', code: '3024-7', value: '1.2', media_ids: [MEDIA] },
      ],
    }));
    const out = await lab('results', made.id, '--file', report);
    expect(out.order).toMatchObject({ status: 'RESULTS_AVAILABLE', kit_serial: serial });
    occurred.push(out.order.updated_at);
    legs.push(null);
    envelopes.push(out.events[0].envelope);

    const read = await getOrder(t, key(), made.id);
    expect(read).toMatchObject({ status: 'RESULTS_AVAILABLE', accession_id: 'ACC-2026-0001', media_ids: [MEDIA.toLowerCase()] });
    const { v0, v2, seed } = await resultsOf(t, key(), made.id);
    const loinc = { code_system: 'LOINC' };
    expect(v0).toEqual([
      { name: 'TSH', quantitative_value: '5.2', measured_at: '2026-01-20T09:30:00.000Z', panel_name: 'Thyroid-stimulating hormone', severity: 'high', panel_code: 'tsh', code: '3016-3', ...loinc, unit: 'mIU/L', reference_range: '0.4-4' },
      { name: 'Free T4', quantitative_value: '1.2', measured_at: expect.any(String), panel_name: 'Free thyroxine', severity: 'normal', panel_code: 'free_t4', code: '3024-7', ...loinc, unit: 'ng/dL', reference_range: '0.8-1.8' },
    ]);
    // Measured when released, unless the report says when.
    expect(Math.abs(Date.parse(v0[1]!.measured_at) - Date.parse(out.order.updated_at))).toBeLessThan(5_000);
    expect(v2).toEqual([{ ...v0[0], media_ids: [] }, { ...v0[1], media_ids: [MEDIA.toLowerCase()] }]);
    expect(seed).toEqual(v0);
  });

  it('recorded one event per milestone, in order, each with the details of its milestone', async () => {
    const events = await eventsOf(made.id);
    expect(events).toEqual(
      MILESTONES.map((status, i) => ({
        callback_type: CALLBACK_TYPE[status],
        status: 'success',
        request_id: made.id,
        timestamp: expect.any(Number),
        details: {
          order_id: made.id,
          patient_token: patient,
          status,
          occurred_at: occurred[i],
          carrier: legs[i]?.carrier ?? null,
          tracking_number: legs[i]?.tracking_number ?? null,
          kit_serial: i === 0 ? null : serial,
          results_available: status === 'RESULTS_AVAILABLE',
          rejection: null,
        },
      })),
    );
    // What each command printed is what was recorded.
    expect(events.slice(1)).toEqual(envelopes);
  });

  it('refuses every action after the results, and answers its rejection 404 The order was not rejected.', async () => {
    const before = await getOrder(t, key(), made.id);
    for (const [action, ...options] of [
      ['ship', '--carrier', 'ups', '--tracking-number', '1Z1'],
      ['deliver-to-lab'],
      ['access', '--accession-id', 'ACC-2'],
      ['reject', '--reason', 'Too late.', '--fixable', 'false'],
    ]) {
      await expect(labInProcess(action!, made.id, ...options), action).rejects.toThrow(`Order ${made.id} is RESULTS_AVAILABLE;`);
    }
    expect(await getOrder(t, key(), made.id)).toEqual(before);
    expect(await eventsOf(made.id)).toHaveLength(9);
    const { error, response } = await t.client(key()).GET('/diagnostics/v0/orders/{order_id}/rejection', { params: { path: { order_id: made.id } } });
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'The order was not rejected.' });
  });
});

describe('the lab rejects a sample', () => {
  it('lab reject --fixable true --panel: REJECTED, the rejection readable, no results, DIAGNOSTICS_ORDER_REJECTED with status error', async () => {
    const made = await order();
    await driveOrder(t, made.id, 'DELIVERED_TO_LAB');
    const out = await lab('reject', made.id, '--reason', 'The sample was hemolyzed.', '--fixable', 'true', '--panel', 'free THYROXINE');
    expect(out.order.status).toBe('REJECTED');
    const rejection = { reason: 'The sample was hemolyzed.', rejected_at: out.order.updated_at, fixable: true, panel_name: 'Free thyroxine' };
    const answered = await t.client(key()).GET('/diagnostics/v0/orders/{order_id}/rejection', { params: { path: { order_id: made.id } } });
    expect(answered.data).toEqual(rejection);
    expect((await getOrder(t, key(), made.id)).status).toBe('REJECTED');
    expect(await resultsOf(t, key(), made.id)).toEqual(noResults);

    const events = await eventsOf(made.id);
    expect(events.map((e) => e.details.status)).toEqual(['ORDER_SUCCESS', 'SHIPPED', 'IN_TRANSIT', 'DELIVERED_TO_PATIENT', 'SHIPPED_TO_LAB', 'IN_TRANSIT_TO_LAB', 'DELIVERED_TO_LAB', 'REJECTED']);
    expect(events.at(-1)).toEqual({
      callback_type: 'DIAGNOSTICS_ORDER_REJECTED',
      status: 'error',
      request_id: made.id,
      timestamp: expect.any(Number),
      details: { order_id: made.id, patient_token: patient, status: 'REJECTED', occurred_at: rejection.rejected_at, carrier: null, tracking_number: null, kit_serial: out.order.kit_serial, results_available: false, rejection },
    });
    // Rejected ends the order.
    await expect(labInProcess('access', made.id, '--accession-id', 'ACC-3')).rejects.toThrow(`Order ${made.id} is REJECTED;`);
  });

  it('after the lab accessed the kit, not fixable and for no panel: the rejection has no panel_name', async () => {
    const made = await order();
    await driveOrder(t, made.id, 'LAB_ACCESSED_KIT');
    await labInProcess('reject', made.id, '--reason', 'Insufficient sample volume.', '--fixable', 'false');
    const { data } = await t.client(key()).GET('/diagnostics/v0/orders/{order_id}/rejection', { params: { path: { order_id: made.id } } });
    expect(data).toEqual({ reason: 'Insufficient sample volume.', rejected_at: expect.any(String), fixable: false });
  });
});

describe('a kit the customer holds (registered with its serial)', () => {
  it('goes from ORDER_SUCCESS straight to shipped to lab; lab ship is refused for it', async () => {
    const serial = freshSerial('HELD');
    const held = await registerOrder(t, key(), { kit_serial: serial, patient_token: patient, test_id: TESTS.thyroid, kit_id: KITS.upperArm });
    const refused = await labRefused('ship', held.id, '--carrier', 'ups', '--tracking-number', '1Z1');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Order ${held.id} is for a kit the customer holds: nothing ships to the patient.`);
    expect(await getOrder(t, key(), held.id)).toEqual(held);

    const out = await lab('ship-to-lab', held.id, '--carrier', usps.carrier, '--tracking-number', usps.tracking_number);
    expect(out.order).toEqual({ id: held.id, status: 'SHIPPED_TO_LAB', kit_serial: serial, updated_at: expect.any(String) });
    expect(await getOrder(t, key(), held.id)).toEqual({ ...held, status: 'SHIPPED_TO_LAB', kit: { ...held.kit, return_shipment: usps }, updated_at: out.order.updated_at });
    const events = await eventsOf(held.id);
    expect(events.map((e) => [e.callback_type, e.details.kit_serial, e.details.carrier])).toEqual([
      ['DIAGNOSTICS_ORDER_SUCCESS', serial, null],
      ['DIAGNOSTICS_ORDER_SHIPPED_TO_LAB', serial, 'usps'],
    ]);
  });
});

describe('pnpm admin lab refuses, changing nothing', () => {
  beforeAll(async () => {
    await registerOrder(t, key(), { kit_serial: 'KT-TAKEN-0001', patient_token: patient, test_id: TESTS.a1c });
  });
  const long = (n: number) => 'X'.repeat(n);
  it.each<[string, 'DELIVERED_TO_PATIENT' | null, (id: string) => string[], string]>([
    ['a shipment without a serial, for an order that has none', null, () => ['ship', '--carrier', 'ups', '--tracking-number', '1Z1'], 'has no kit serial: give the serial of the kit shipped.'],
    ['a shipment with a malformed serial', null, () => ['ship', '--carrier', 'ups', '--tracking-number', '1Z1', '--serial', 'KT 1'], 'Kit serial KT 1 is not 4 to 64 letters, digits and hyphens.'],
    ['a shipment with a serial another order holds', null, () => ['ship', '--carrier', 'ups', '--tracking-number', '1Z1', '--serial', 'KT-TAKEN-0001'], 'Kit serial KT-TAKEN-0001 is already registered.'],
    ['a shipment without a carrier', null, () => ['ship', '--tracking-number', '1Z1', '--serial', freshSerial()], '--carrier is required'],
    ['a carrier name longer than the spec answers (50)', null, () => ['ship', '--carrier', long(51), '--tracking-number', '1Z1', '--serial', freshSerial()], 'carrier'],
    ['a tracking number longer than the spec answers (100)', 'DELIVERED_TO_PATIENT', () => ['ship-to-lab', '--carrier', 'usps', '--tracking-number', long(101)], 'tracking'],
    ['an accession id with a space', null, () => ['access', '--accession-id', 'ACC 1'], 'An accession id is 1 to 64 letters, digits, hyphens and underscores.'],
    ['a rejection whose fixable is not true or false', null, () => ['reject', '--reason', 'x', '--fixable', 'maybe'], '--fixable must be true or false'],
    ['a rejection naming a panel the order does not run', null, () => ['reject', '--reason', 'x', '--fixable', 'true', '--panel', 'cortisol'], 'runs no panel cortisol.'],
    ['an unknown action', null, () => ['return'], 'the action must be one of ship, in-transit, deliver'],
  ])('%s', async (_, until, args, message) => {
    // A customer of its own: what one refusal fails to refuse stays out of the others' feeds.
    const customer = await t.customer();
    const apiKey = customer.production_api_key;
    const made = await createOrder(t, apiKey, { patient_token: await createPatient(t, apiKey), test_id: TESTS.thyroid, address: shippingAddress });
    if (until) await driveOrder(t, made.id, until);
    const before = await getOrder(t, apiKey, made.id);
    const eventCount = (await eventsOf(made.id, apiKey)).length;
    const [action, ...options] = args(made.id);
    await expect(labInProcess(action!, made.id, ...options)).rejects.toThrow(message);
    expect(await getOrder(t, apiKey, made.id)).toEqual(before);
    expect(await eventsOf(made.id, apiKey)).toHaveLength(eventCount);
  });

  it('an order that does not exist', async () => {
    await expect(labInProcess('deliver', UNKNOWN_ID)).rejects.toThrow(`Order ${UNKNOWN_ID} not found.`);
  });
});
