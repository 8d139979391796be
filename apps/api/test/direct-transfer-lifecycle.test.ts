import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { createPatient } from './support/fixtures.js';
import { directTransferBody } from './support/lifecycle-fixtures.js';
import { startStaffApp, type StaffActions } from './support/staff-actions.js';
import type { TestApp } from './support/test-app.js';

/** What pharmacy staff do with a direct transfer (direct-transfers/direct-transfer-lifecycle.ts). */
let t: TestApp;
let acme: NewCustomer;
let staff: StaffActions;

beforeAll(async () => {
  ({ t, acme, staff } = await startStaffApp());
});
afterAll(async () => t?.close());

const db = () => t.database.handle.db;
const key = () => acme.production_api_key;
const directTransfers = () => t.app.services.directTransferLifecycle;

describe('direct transfers', () => {
  async function createDirectTransfer(): Promise<{ patient: string; token: string }> {
    const patient = await createPatient(t, key());
    const { data, response } = await t.client(key()).POST('/v1/direct_transfer', {
      body: directTransferBody(patient) as never,
    });
    expect(response.status).toBe(201);
    return { patient, token: data!.details.direct_transfer_id };
  }

  it('accepting: the prescription is created, then NOTIFY_RX and DIRECT_TRANSFER success', async () => {
    const { patient, token } = await createDirectTransfer();
    const before = await staff.eventCount();
    const result = await staff.act((uow) => directTransfers().accept(uow, token));
    const events = await staff.newEvents(before);
    expect(events.map((e) => `${e.callback_type}:${e.status ?? '-'}`)).toEqual(['NOTIFY_RX:-', 'DIRECT_TRANSFER:success']);
    expect(events[0]!.details).toMatchObject({ prescription_token: result.prescription_token, patient_token: patient, prescriber: 'Alex Smith' });
    expect(events[1]).toMatchObject({ request_id: token, details: { direct_transfer_token: token, prescription_token: result.prescription_token } });
    const rx = await db().selectFrom('prescriptions').selectAll().where('token', '=', result.prescription_token).executeTakeFirstOrThrow();
    expect(rx).toMatchObject({ patient_token: patient, medication_name: 'Atorvastatin 20 mg tablet', refills_remaining: 4, origin: 'direct_transfer' });
    const read = await t.client(key()).GET('/v1/direct_transfer/{direct_transfer_token}', { params: { path: { direct_transfer_token: token } } });
    expect(read.response.status).toBe(200);
    expect(JSON.stringify(read.data)).toContain('accepted');
    await expect(staff.act((uow) => directTransfers().reject(uow, token, 'too late'))).rejects.toMatchObject({ code: 'NOT_PENDING' });
  });

  it('rejecting: only a DIRECT_TRANSFER error whose message starts with the rejection notice', async () => {
    const { token } = await createDirectTransfer();
    const before = await staff.eventCount();
    await staff.act((uow) => directTransfers().reject(uow, token, 'the prescription has no refills left to transfer'));
    const events = await staff.newEvents(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ callback_type: 'DIRECT_TRANSFER', status: 'error', request_id: token });
    expect(events[0]!.details.message).toBe('Direct transfer rejected: the prescription has no refills left to transfer.');
    await expect(staff.act((uow) => directTransfers().accept(uow, token))).rejects.toMatchObject({ code: 'NOT_PENDING' });
    expect(await staff.eventCount()).toBe(before + 1);
  });
});
