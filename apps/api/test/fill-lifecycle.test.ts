import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createPatient, destination, insertPrescription } from './support/fixtures.js';
import { startStaffApp, type StaffActions } from './support/staff-actions.js';
import type { TestApp } from './support/test-app.js';

/** What pharmacy staff do with a fill request and its order (fill-requests/fill-lifecycle.ts). */
let t: TestApp;
let acme: NewCustomer;
let staff: StaffActions;

beforeAll(async () => {
  ({ t, acme, staff } = await startStaffApp());
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;
const fills = () => t.app.services.fillLifecycle;

describe('fill requests, orders and shipments', () => {
  async function fillRequest(ndc: string | null = '00071015523'): Promise<{ token: string; patient: string; rx: string }> {
    const patient = await createPatient(t, key());
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: patient }, { prescribed_ndc: ndc });
    const { patient_survey: _s, ...address } = destination;
    const { data, response } = await t.client(key()).POST('/v1/fill_request', {
      body: {
        patient_token: patient,
        patient_payment_type: 'cash',
        medications: [{ prescription_token: rx.token }],
        ...address,
        patient_survey: {},
        metadata: 'order-10046',
      } as never,
    });
    expect(response.status).toBe(201);
    return { token: data!.request_id, patient, rx: rx.token };
  }

  it('dispense: the order and ORDER success; shipments: SHIPMENT events to DELIVERED, the order shipped then delivered', async () => {
    const { token, patient, rx } = await fillRequest();
    const before = await staff.eventCount();
    const dispensed = await staff.act((uow) => fills().dispense(uow, token));
    const order = dispensed.order_token;
    await staff.act((uow) => fills().ship(uow, order, 'IN_TRANSIT'));
    const shipped = await t.client(key()).GET('/v1/order/{token}', { params: { path: { token: order } } });
    expect(shipped.data).toMatchObject({ status: 'shipped', carrier: 'USPS' });
    await staff.act((uow) => fills().ship(uow, order, 'OUT_FOR_DELIVERY'));
    await staff.act((uow) => fills().ship(uow, order, 'DELIVERED'));
    const delivered = await t.client(key()).GET('/v1/order/{token}', { params: { path: { token: order } } });
    expect(delivered.data).toMatchObject({ status: 'delivered' });

    const events = await staff.newEvents(before);
    expect(events.map((e) => `${e.callback_type}:${e.status}:${e.details.status ?? ''}`)).toEqual([
      'ORDER:success:',
      'SHIPMENT:success:IN_TRANSIT',
      'SHIPMENT:success:OUT_FOR_DELIVERY',
      'SHIPMENT:success:DELIVERED',
    ]);
    const orderEvent = events[0]!;
    expect(orderEvent).toMatchObject({ request_id: token, details: { order_token: order, patient_token: patient, metadata: 'order-10046', tracking_number: null } });
    expect(orderEvent.details.medications[0]).toMatchObject({
      prescription_token: rx,
      fill_number: 0,
      dispensed_ndc: '00071015523',
      remaining_refills: { total_remaining_refills: 2, total_quantity_remaining: 60 },
    });
    const tracking = events[1]!.details.tracking_number;
    expect(events.slice(1).every((e) => e.details.tracking_number === tracking && e.request_id === token)).toBe(true);
    expect(events[3]!.details.eta).toBeNull();

    await expect(staff.act((uow) => fills().ship(uow, order, 'IN_TRANSIT'))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    await expect(staff.act((uow) => fills().dispense(uow, token))).rejects.toMatchObject({ code: 'NOT_PENDING' });
  });

  it('a prescription without a usable NDC is dispensed with the unknown NDC, so the event stays valid', async () => {
    const { token } = await fillRequest(null);
    const before = await staff.eventCount();
    await staff.act((uow) => fills().dispense(uow, token));
    const [event] = await staff.newEvents(before);
    expect(event!.details.medications[0].dispensed_ndc).toMatch(/^[0-9-]{10,13}$/);
  });

  it.each([['triage'], ['error']] as const)('a fill request held (%s): ORDER with that status, no order', async (status) => {
    const { token } = await fillRequest();
    const before = await staff.eventCount();
    if (status === 'triage') await staff.act((uow) => fills().triage(uow, token));
    else await staff.act((uow) => fills().refuse(uow, token, 'Out of stock.'));
    const [event] = await staff.newEvents(before);
    expect(event).toMatchObject({ callback_type: 'ORDER', status, request_id: token, details: { date_filled: null, medications: [] } });
    const { data } = await t.client(key()).GET('/v1/fill_request/{url_token}', { params: { path: { url_token: token } } });
    expect(data!.status).toBe(status);
  });
});
