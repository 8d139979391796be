// Refills submitted too soon are held, not refused: the receipt says `scheduled`, the
// scheduled fill request reads, moves and cancels as the real platform's, and the scheduler
// submits the held request on its date under its own request_id. Another customer's
// schedules are invisible.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '../src/clock.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { cashBody, fillRequestSteps } from './support/fill-request-steps.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

const DAY = 86_400_000;
let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());
afterEach(() => resetClock());

const { patientWithPrescription, submit, readPrescription } = fillRequestSteps(() => ({ t, acme }));
const client = () => t.client(acme.sandbox_api_key);

/** A prescription filled just now, and a refill of it submitted right after: held. */
async function heldRefill() {
  const { patient, rx } = await patientWithPrescription({ number_of_refills_allowed: 3, refills_remaining: 3, quantity_remaining: 300 });
  expect((await submit(cashBody(patient, [rx.token]))).response.status).toBe(201);
  const filled = await readPrescription(rx.token);
  const held = await submit(cashBody(patient, [rx.token], { metadata: 'refill-2' }));
  expect(held.response.status).toBe(201);
  return { patient, rx, filled, receipt: held.data! };
}

describe('a refill submitted too soon', () => {
  it('is held until the earliest allowed date, then submitted by the scheduler under its request_id', async () => {
    const { rx, filled, receipt } = await heldRefill();
    const earliest = new Date(Date.parse(filled.last_filled_date!) + 22.5 * DAY).toISOString();
    expect(receipt).toMatchObject({ status: 'scheduled', details: { metadata: 'refill-2', scheduled_fill_request: { submit_on: earliest, original_fill_request_token: receipt.request_id } } });
    expect(receipt.details.message).toContain('too soon');
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 3, quantity_remaining: 270 });

    const byToken = await client().GET('/scheduled-fill-requests', { params: { query: { original_fill_request_token: receipt.request_id } } });
    expect(byToken.data).toMatchObject({ id: receipt.details.scheduled_fill_request!.id, status: 'PENDING', submit_on: earliest, original_fill_request_token: receipt.request_id, reason: null });
    const byId = await client().GET('/scheduled-fill-requests', { params: { query: { id: byToken.data!.id } } });
    expect(byId.data).toEqual(byToken.data);
    const read = await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: receipt.request_id } } });
    expect(read.data).toMatchObject({ status: 'scheduled', metadata: 'refill-2' });

    await t.app.services.scheduler.tick();
    advanceClock(22 * DAY);
    await t.app.services.scheduler.tick();
    expect((await client().GET('/scheduled-fill-requests', { params: { query: { id: byId.data!.id } } })).data!.status).toBe('PENDING');
    advanceClock(DAY);
    await t.app.services.scheduler.tick();
    const done = await client().GET('/scheduled-fill-requests', { params: { query: { id: byId.data!.id } } });
    expect(done.data!.status).toBe('COMPLETE');
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 2, quantity_remaining: 240 });
    const submitted = await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: receipt.request_id } } });
    expect(submitted.data).toMatchObject({ status: 'pending', metadata: 'refill-2' });
    const { data } = await client().GET('/scheduled-actions', { params: { query: { limit: 100 } } });
    expect(data!.scheduled_actions).toContainEqual(expect.objectContaining({ id: byId.data!.id, action_type: 'FILL_REQUEST', status: 'COMPLETE', metadata: { request_id: receipt.request_id } }));

    const late = await client().PUT('/scheduled-fill-requests/{id}', { params: { path: { id: byId.data!.id } }, body: { submit_on: new Date().toISOString() } });
    expect(late.response.status).toBe(409);
    expect(late.error).toMatchObject({ statusCode: '0003' });
  });

  it('moves (PUT, POST) never before the earliest date; POST may replace what is submitted; DELETE cancels it and the held request', async () => {
    const { rx, filled, receipt } = await heldRefill();
    const id = receipt.details.scheduled_fill_request!.id;
    const earliest = Date.parse(filled.last_filled_date!) + 22.5 * DAY;

    const early = await client().PUT('/scheduled-fill-requests/{id}', { params: { path: { id } }, body: { submit_on: new Date(earliest - DAY).toISOString() } });
    expect(early.response.status).toBe(400);
    expect(early.error).toMatchObject({ statusCode: '0001', validation_errors: [{ key: 'submit_on', message: `must not be before ${new Date(earliest).toISOString()}, the earliest date the refill is allowed` }] });

    const later = new Date(earliest + 5 * DAY).toISOString();
    const moved = await client().PUT('/scheduled-fill-requests/{id}', { params: { path: { id } }, body: { submit_on: later } });
    expect(moved.data).toEqual({ id, submit_on: later, original_fill_request_token: receipt.request_id });

    const body = cashBody(receipt.details.scheduled_fill_request ? (await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: receipt.request_id } } })).data!.patient_token : '', [rx.token], { metadata: 'replaced' });
    const posted = await client().POST('/scheduled-fill-requests', { body: { original_fill_request_token: receipt.request_id, submit_on: new Date(earliest + DAY).toISOString(), fill_request_payload: body as never } });
    expect(posted.response.status).toBe(200);
    expect(posted.data).toMatchObject({ id, original_fill_request_token: receipt.request_id });
    const wrongPatient = await client().POST('/scheduled-fill-requests', { body: { original_fill_request_token: receipt.request_id, submit_on: new Date(earliest + DAY).toISOString(), fill_request_payload: { ...body, patient_token: 'someoneelse' } as never } });
    expect(wrongPatient.error).toMatchObject({ statusCode: '0001' });

    advanceClock(24 * DAY);
    await t.app.services.scheduler.tick();
    const submitted = await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: receipt.request_id } } });
    expect(submitted.data).toMatchObject({ status: 'pending', metadata: 'replaced' });

    // Another held refill, canceled.
    const other = await heldRefill();
    const otherId = other.receipt.details.scheduled_fill_request!.id;
    const canceled = await client().DELETE('/scheduled-fill-requests/{id}', { params: { path: { id: otherId } } });
    expect(canceled.data).toEqual({ id: otherId, status: 'CANCELLED' });
    expect((await client().DELETE('/scheduled-fill-requests/{id}', { params: { path: { id: otherId } } })).data).toEqual({ id: otherId, status: 'CANCELLED' });
    const read = await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: other.receipt.request_id } } });
    expect(read.data!.status).toBe('canceled');
    advanceClock(30 * DAY);
    await t.app.services.scheduler.tick();
    expect(await readPrescription(other.rx.token)).toMatchObject({ refills_remaining: 3, quantity_remaining: 270 });
    expect((await client().GET('/scheduled-fill-requests', { params: { query: { id: otherId } } })).data).toMatchObject({ status: 'CANCELLED', reason: 'Canceled by the customer.' });
  });

  it('ends a held request in error (ORDER error) when its prescription can no longer be filled on the date', async () => {
    const { rx, receipt } = await heldRefill();
    await t.database.handle.db.updateTable('prescriptions').set({ status: 'transferred' }).where('token', '=', rx.token).execute();
    advanceClock(23 * DAY);
    await t.app.services.scheduler.tick();
    const read = await client().GET('/scheduled-fill-requests', { params: { query: { original_fill_request_token: receipt.request_id } } });
    expect(read.data).toMatchObject({ status: 'CANCELLED', reason: 'medications.0.prescription_token is not fillable: it was transferred out' });
    const request = await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: receipt.request_id } } });
    expect(request.data!.status).toBe('error');
    const events = await t.database.handle.db.selectFrom('events').select(['callback_type', 'status', 'payload']).where('request_id', '=', receipt.request_id).execute();
    expect(events.map((e) => [e.callback_type, e.status])).toEqual([['ORDER', 'error']]);
  });

  it('answers in the real shapes: 400 0001 for neither or both parameters, 404 0002 for unknown or another customer\'s; lists actions by page', async () => {
    const neither = await client().GET('/scheduled-fill-requests', {});
    expect(neither.response.status).toBe(400);
    expect(neither.error).toMatchObject({ statusCode: '0001', message: 'id is required' });
    const both = await client().GET('/scheduled-fill-requests', { params: { query: { id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b', original_fill_request_token: 'x' } } });
    expect(both.error).toMatchObject({ statusCode: '0001', message: 'original_fill_request_token is not allowed' });
    const unknown = await client().GET('/scheduled-fill-requests', { params: { query: { id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b' } } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ statusCode: '0002', message: 'Scheduled fill request not found.' });

    const { receipt } = await heldRefill();
    const id = receipt.details.scheduled_fill_request!.id;
    const other = t.client(globex.sandbox_api_key);
    expect((await other.GET('/scheduled-fill-requests', { params: { query: { id } } })).response.status).toBe(404);
    expect((await other.DELETE('/scheduled-fill-requests/{id}', { params: { path: { id } } })).response.status).toBe(404);
    expect((await other.PUT('/scheduled-fill-requests/{id}', { params: { path: { id } }, body: { submit_on: '2099-01-01T00:00:00Z' } })).response.status).toBe(404);
    expect((await other.POST('/scheduled-fill-requests', { body: { original_fill_request_token: receipt.request_id, submit_on: '2099-01-01T00:00:00Z' } })).response.status).toBe(404);

    const first = await client().GET('/scheduled-actions', { params: { query: { limit: 1 } } });
    expect(first.data).toMatchObject({ status: 'successful', pagination: { per_page: 1, total: expect.any(Number) } });
    expect(first.data!.pagination.pages).toBe(first.data!.pagination.total);
    const second = await client().GET('/scheduled-actions', { params: { query: { limit: 1, nextPageToken: first.data!.pagination.next_page_token! } } });
    expect(second.data!.scheduled_actions[0]!.id).not.toBe(first.data!.scheduled_actions[0]!.id);
    const bad = await client().GET('/scheduled-actions', { params: { query: { nextPageToken: 'bm90IGEgY3Vyc29y' } } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ statusCode: '0001' });
    const over = await t.raw('GET', '/scheduled-actions?limit=101', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}` } });
    expect(over.status).toBe(400);
    expect(over.json).toMatchObject({ statusCode: '0001' });
  });

  it('POST /v1/cancel_request cancels a held request with its schedule; a held request partly canceled submits only the rest', async () => {
    const whole = await heldRefill();
    const canceled = await client().POST('/v1/cancel_request', { body: { request_id: whole.receipt.request_id } });
    expect(canceled.response.status).toBe(200);
    const schedule = await client().GET('/scheduled-fill-requests', { params: { query: { original_fill_request_token: whole.receipt.request_id } } });
    expect(schedule.data).toMatchObject({ status: 'CANCELLED', reason: 'The fill request was canceled.' });

    const { patient, rx } = await patientWithPrescription({ number_of_refills_allowed: 3, refills_remaining: 3, quantity_remaining: 300 });
    const other = await patientWithPrescription({ number_of_refills_allowed: 3, refills_remaining: 3, quantity_remaining: 300 });
    await t.database.handle.db.updateTable('prescriptions').set({ patient_token: patient }).where('token', '=', other.rx.token).execute();
    expect((await submit(cashBody(patient, [rx.token, other.rx.token]))).response.status).toBe(201);
    const held = await submit(cashBody(patient, [rx.token, other.rx.token]));
    expect(held.data!.status).toBe('scheduled');
    const partly = await client().POST('/v1/cancel_request', { body: { request_id: held.data!.request_id, medications: [{ prescription_token: other.rx.token }] } });
    expect(partly.data!.details.cancelled_medications).toEqual([{ prescription_token: other.rx.token }]);
    advanceClock(23 * DAY);
    await t.app.services.scheduler.tick();
    expect((await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: held.data!.request_id } } })).data!.status).toBe('pending');
    expect(await readPrescription(rx.token)).toMatchObject({ refills_remaining: 2 });
    expect(await readPrescription(other.rx.token)).toMatchObject({ refills_remaining: 3 });
  });
});
