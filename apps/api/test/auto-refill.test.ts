// Refills that happen by themselves: a subscription observed through three cycles with a
// moved clock (each a fill request the sandbox pharmacy orders, ships and delivers, reported
// by AUTO_REFILL, ORDER and SHIPMENT webhooks to a local receiver); skip and early refill; a
// subscription that ends when the prescription runs out; the auto-refill envelope and its
// errors; another customer's subscriptions invisible.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '../src/clock.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { waitFor } from './support/event-schemas.js';
import { cashBody } from './support/fill-request-steps.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { startSandboxWithReceiver, type SandboxWithReceiver } from './support/sandbox-receiver.js';

const DAY = 86_400_000;
let s: SandboxWithReceiver;
let globex: NewCustomer;

beforeAll(async () => {
  s = await startSandboxWithReceiver();
  globex = await s.t.customer('Globex');
});
afterAll(async () => s?.close());
afterEach(() => resetClock());

const key = () => s.acme.sandbox_api_key;
const client = () => s.t.client(key());

interface Delivered {
  request_id?: string;
  callback_type: string;
  status?: string;
  details: Record<string, any>;
}

/** The events the receiver got, parsed. */
function received(): Delivered[] {
  return s.receiver.received.map((r) => JSON.parse(r.body) as Delivered);
}

/** Waits until the receiver got an event matching `match`. */
function delivered(match: (e: Delivered) => boolean, what: string): Promise<Delivered> {
  return waitFor(async () => received().find(match), 20_000, what);
}

/** A patient of Acme's with a prescription (never filled unless `over` says otherwise). */
async function prescription(over: Record<string, unknown> = {}) {
  const patient = await createPatient(s.t, key());
  const rx = await insertPrescription(s.t, { customer_id: s.acme.customer_id, patient_token: patient }, { number_of_refills_allowed: 5, refills_remaining: 5, quantity_remaining: 300, ...over });
  return { patient, rx };
}

async function readRx(token: string) {
  return s.t.database.handle.db.selectFrom('prescriptions').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
}

/** Moves the clock and has the scheduler perform what is due (its worker would within a second). */
async function moveClock(ms: number) {
  advanceClock(ms);
  await s.t.app.services.scheduler.tick();
}

async function actionsOf(autoRefillId: number) {
  const { data } = await client().GET('/scheduled-actions', { params: { query: { limit: 100 } } });
  return data!.scheduled_actions.filter((a) => a.metadata.auto_refill_id === autoRefillId).sort((a, b) => a.metadata.cycle! - b.metadata.cycle!);
}

describe('a subscription through three cycles', () => {
  it('consent on a fill request subscribes; each cycle submits a refill reported by AUTO_REFILL, ORDER and SHIPMENT webhooks', async () => {
    const { patient, rx } = await prescription();
    const first = await client().POST('/v1/fill_request', {
      body: cashBody(patient, [], {
        medications: [{ prescription_token: rx.token, patient_consent: { auto_refill: { date_provided: '2026-01-15', consent_statement: 'I consent to automatic refills.' } } }],
        metadata: 'order-77',
      }) as never,
    });
    expect(first.response.status).toBe(201);
    await delivered((e) => e.request_id === first.data!.request_id && e.details.status === 'DELIVERED', 'the first fill delivered');

    const sub = await client().GET('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    expect(sub.response.status).toBe(200);
    const medication = sub.data!.data.details.auto_refill_medications;
    expect(medication).toMatchObject({ status: 'active', interval_days: 30, metadata: 'order-77', refills_remaining: 5, auto_reminder: false });
    expect(Date.parse(medication.auto_refill_date!) - Date.now()).toBeGreaterThan(29 * DAY);
    expect(sub.data!.data.details.scheduled_fill_address).toMatchObject({ name: expect.any(String), zip: expect.any(String) });
    const id = medication.auto_refill_id;

    // Nothing is submitted before the date.
    await moveClock(20 * DAY);
    expect(received().filter((e) => e.callback_type === 'AUTO_REFILL')).toHaveLength(0);
    advanceClock(-20 * DAY);

    const requests: string[] = [];
    for (const cycle of [1, 2, 3]) {
      await moveClock(30 * DAY + 60_000);
      const submitted = await delivered((e) => e.callback_type === 'AUTO_REFILL' && e.details.cycle === cycle, `AUTO_REFILL of cycle ${cycle}`);
      expect(submitted).toMatchObject({ status: 'success', details: { auto_refill_id: id, prescription_token: rx.token, patient_token: patient, metadata: 'order-77' } });
      const requestId = submitted.request_id!;
      requests.push(requestId);
      await delivered((e) => e.request_id === requestId && e.callback_type === 'ORDER' && e.status === 'success', `ORDER of cycle ${cycle}`);
      await delivered((e) => e.request_id === requestId && e.details.status === 'DELIVERED', `SHIPMENT DELIVERED of cycle ${cycle}`);
      // A second tick at the same time submits nothing more.
      await s.t.app.services.scheduler.tick();
      expect(received().filter((e) => e.callback_type === 'AUTO_REFILL' && e.details.cycle === cycle)).toHaveLength(1);
    }
    expect(new Set(requests).size).toBe(3);
    const read = await client().GET('/v1/fill_request/{url_token}', { params: { path: { url_token: requests[2]! } } });
    expect(read.data).toMatchObject({ patient_token: patient, metadata: 'order-77', medications: [{ prescription_token: rx.token }] });
    expect(await readRx(rx.token)).toMatchObject({ refills_remaining: 2 });

    const actions = await actionsOf(id);
    expect(actions.map((a) => [a.metadata.cycle, a.status, a.action_type])).toEqual([
      [1, 'COMPLETE', 'AUTO_REFILL'],
      [2, 'COMPLETE', 'AUTO_REFILL'],
      [3, 'COMPLETE', 'AUTO_REFILL'],
      [4, 'PENDING', 'AUTO_REFILL'],
    ]);
    expect(actions.slice(0, 3).map((a) => a.metadata.request_id)).toEqual(requests);
    const after = await client().GET('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    expect(after.data!.data.details.auto_refill_medications).toMatchObject({ last_fill_request_id: requests[2], refills_remaining: 2 });

    // The AUTO_REFILL events are listed like every other (the list answers them in the WebhookEvent union).
    const all = await client().GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
    expect(all.response.status).toBe(200);
    expect(JSON.stringify(all.data)).toContain(`"callback_type":"AUTO_REFILL"`);
    expect(JSON.stringify(all.data)).toContain(requests[0]!);
  });
});

describe('subscribing, skipping, refilling early, canceling', () => {
  /** A prescription filled once through a fill request, so a bodiless POST finds its settings. */
  async function filledOnce(over: Record<string, unknown> = {}) {
    const { patient, rx } = await prescription(over);
    const { response } = await client().POST('/v1/fill_request', { body: cashBody(patient, [rx.token], { metadata: 'm-1' }) as never });
    expect(response.status).toBe(201);
    return { patient, rx };
  }

  it('subscribes without a body, taking the latest fill request; skip moves the next refill one cycle; early moves it to the earliest allowed date', async () => {
    const { rx } = await filledOnce();
    // As clients that always send the header do: an empty JSON body is no body here (it is refused where a body is required).
    const json = { authorization: `ApiKey ${key()}`, 'content-type': 'application/json' };
    const created = await s.t.raw('POST', `/v1/auto-refill/${rx.token}`, { headers: json, body: '' });
    expect(created.status).toBe(200);
    expect((await s.t.raw('POST', '/v1/fill_request', { headers: json, body: '' })).json).toMatchObject({ statusCode: 400, message: 'Body cannot be empty when Content-Type is application/json.' });
    const med = created.json.data.details.auto_refill_medications;
    expect(med).toMatchObject({ status: 'active', metadata: 'm-1', shipping_method: 'usps_first' });
    const due = Date.parse(med.auto_refill_date!);

    const again = await client().POST('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    expect(again.response.status).toBe(400);
    expect(again.error).toMatchObject({ code: 400, err: true, data: { status: 'unsuccessful', details: { message: 'prescription_token already has an active auto-refill subscription' } } });

    const skipped = await client().DELETE('/v1/auto-refill/{prescription_token}/skip-refill', { params: { path: { prescription_token: rx.token } } });
    expect(skipped.response.status).toBe(200);
    expect(Date.parse(skipped.data!.data.details!.auto_refill_medications.auto_refill_date!)).toBe(due + 30 * DAY);

    const early = await client().POST('/v1/auto-refill/{prescription_token}/early-refill', { params: { path: { prescription_token: rx.token } } });
    expect(early.response.status).toBe(200);
    const sasId = early.data!.data.sas_id;
    // Just filled: the refill is too soon, so the scheduler moves it to the earliest allowed date (22.5 days).
    await s.t.app.services.scheduler.tick();
    const [pending] = (await actionsOf(med.auto_refill_id)).filter((a) => a.status === 'PENDING');
    expect(pending!.id).toBe(sasId);
    const lastFilled = Date.parse((await readRx(rx.token)).last_filled_date!);
    expect(Date.parse(pending!.submit_on)).toBe(lastFilled + 22.5 * DAY);

    await moveClock(23 * DAY);
    const done = (await actionsOf(med.auto_refill_id)).find((a) => a.id === sasId)!;
    expect(done).toMatchObject({ status: 'COMPLETE', metadata: { cycle: 1, request_id: expect.any(String) } });
    expect(await readRx(rx.token)).toMatchObject({ refills_remaining: 4 });
  });

  it('cancels: the pending refill is CANCELLED and nothing more is submitted; a new subscription replaces the ended one', async () => {
    const { rx } = await filledOnce();
    const path = { params: { path: { prescription_token: rx.token } } };
    const created = await client().POST('/v1/auto-refill/{prescription_token}', path);
    const id = created.data!.data.details.auto_refill_medications.auto_refill_id;
    const canceled = await client().DELETE('/v1/auto-refill/{prescription_token}', path);
    expect(canceled.data).toMatchObject({ code: 200, err: false, data: { status: 'successful' } });
    expect((await client().DELETE('/v1/auto-refill/{prescription_token}', path)).response.status).toBe(200);
    const read = await client().GET('/v1/auto-refill/{prescription_token}', path);
    expect(read.data!.data.details.auto_refill_medications).toMatchObject({ status: 'canceled', cancel_reason: 'Canceled by the customer.', auto_refill_date: null });
    await moveClock(60 * DAY);
    expect((await actionsOf(id)).map((a) => a.status)).toEqual(['CANCELLED']);
    expect(await readRx(rx.token)).toMatchObject({ refills_remaining: 5 });
    expect((await client().DELETE('/v1/auto-refill/{prescription_token}/skip-refill', path)).response.status).toBe(400);

    const renewed = await client().POST('/v1/auto-refill/{prescription_token}', { ...path, body: { interval_days: 45 } });
    expect(renewed.response.status).toBe(200);
    expect(renewed.data!.data.details.auto_refill_medications).toMatchObject({ status: 'active', interval_days: 45 });
    expect(renewed.data!.data.details.auto_refill_medications.auto_refill_id).toBeGreaterThan(id);
  });

  it('ends the subscription with an AUTO_REFILL error event when the prescription has no refills left', async () => {
    const { rx } = await filledOnce({ number_of_refills_allowed: 0, refills_remaining: 0 });
    const created = await client().POST('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    // Filled once, no refills: not fillable any more, so it cannot be subscribed.
    expect(created.response.status).toBe(400);
    expect(created.error).toMatchObject({ code: 400, data: { details: { message: 'prescription_token is not fillable: it has no refills remaining' } } });

    const two = await filledOnce({ number_of_refills_allowed: 1, refills_remaining: 1 });
    const sub = await client().POST('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: two.rx.token } } });
    const id = sub.data!.data.details.auto_refill_medications.auto_refill_id;
    await moveClock(31 * DAY); // cycle 1 uses the last refill
    await moveClock(31 * DAY); // cycle 2 cannot be made
    const ended = await delivered((e) => e.callback_type === 'AUTO_REFILL' && e.status === 'error' && e.details.auto_refill_id === id, 'AUTO_REFILL error');
    expect(ended.details).toMatchObject({ cycle: 2, auto_refill_date: null, message: `Auto-refill ${id} ended: The prescription has no refills remaining.` });
    const read = await client().GET('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: two.rx.token } } });
    expect(read.data!.data.details.auto_refill_medications).toMatchObject({ status: 'canceled', cancel_reason: 'The prescription has no refills remaining.' });
    expect((await actionsOf(id)).map((a) => [a.status, a.reason])).toEqual([
      ['COMPLETE', null],
      ['CANCELLED', 'The prescription has no refills remaining.'],
    ]);
  });

  it('lists subscriptions, all and by patient, in the envelope; another customer sees none of them', async () => {
    const { patient, rx } = await filledOnce();
    await client().POST('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    const all = await client().GET('/v1/auto-refill', { params: { query: { limit: 100 } } });
    expect(all.data!.data.details.auto_refill_subscriptions).toContainEqual(expect.objectContaining({ prescription_token: rx.token, patient_token: patient, status: 'active' }));
    expect(all.data!.data.details.total).toBe(all.data!.data.details.auto_refill_subscriptions.length);
    const page = await client().GET('/v1/auto-refill', { params: { query: { limit: 1 } } });
    expect(page.data!.data.details.auto_refill_subscriptions).toHaveLength(1);
    const next = await client().GET('/v1/auto-refill', { params: { query: { limit: 1, next: page.data!.data.details.nextPageToken! } } });
    expect(next.data!.data.details.auto_refill_subscriptions[0]!.id).not.toBe(page.data!.data.details.auto_refill_subscriptions[0]!.id);
    const mine = await client().GET('/v1/auto-refill/patient/{patient_token}', { params: { path: { patient_token: patient } } });
    expect(mine.data!.data.details).toMatchObject({ total: 1, nextPageToken: null, auto_refill_subscriptions: [{ prescription_token: rx.token }] });

    const other = s.t.client(globex.sandbox_api_key);
    expect((await other.GET('/v1/auto-refill', {})).data!.data.details).toMatchObject({ auto_refill_subscriptions: [], total: 0 });
    const theirs = await other.GET('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    expect(theirs.response.status).toBe(400);
    expect(theirs.error).toMatchObject({ code: 400, err: true, data: { status: 'unsuccessful' } });
    expect((await other.DELETE('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } })).response.status).toBe(400);
    expect((await other.GET('/v1/auto-refill/patient/{patient_token}', { params: { path: { patient_token: patient } } })).response.status).toBe(400);
    const actions = await other.GET('/scheduled-actions', {});
    expect(actions.data).toMatchObject({ scheduled_actions: [], pagination: { total: 0, next_page_token: null } });
    // The production environment of the same customer does not see the sandbox's either.
    const production = await s.t.client(s.acme.production_api_key).GET('/v1/auto-refill', {});
    expect(production.data!.data.details.total).toBe(0);
  });

  it('answers its errors in the envelope: unknown prescription 404, no fill request to take settings from 400', async () => {
    const unknown = await client().GET('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: 'nope' } } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ code: 404, err: true, data: { status: 'unsuccessful', details: { message: 'Unable to find Prescription.' } } });
    const { rx } = await prescription();
    const noSub = await client().GET('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    expect(noSub.error).toMatchObject({ code: 404, data: { details: { message: 'Auto-refill subscription not found.' } } });
    const bare = await client().POST('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
    expect(bare.response.status).toBe(400);
    expect((bare.error as any).data.details.validation_errors).toContainEqual({ key: 'patient_payment_type', message: 'is required: the prescription has no fill request to take it from' });
    const bad = await client().POST('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } }, body: { interval_days: 0 } as never });
    expect(bad.error).toMatchObject({ code: 400, data: { details: { validation_errors: [{ key: 'interval_days' }] } } });
  });

  it('cancels while the scheduler performs the same cycles: every cancel answers 200 (no deadlock), and nothing is pending after it', async () => {
    const subs = [];
    for (let i = 0; i < 30; i++) {
      const { rx } = await filledOnce();
      const created = await client().POST('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: rx.token } } });
      subs.push({ rx: rx.token, id: created.data!.data.details.auto_refill_medications.auto_refill_id });
    }
    advanceClock(31 * DAY);
    const ticks = (async () => {
      while ((await s.t.app.services.scheduler.tick()) > 0);
    })();
    const answers = await Promise.all(subs.map((sub) => client().DELETE('/v1/auto-refill/{prescription_token}', { params: { path: { prescription_token: sub.rx } } })));
    await ticks;
    expect(answers.map((a) => a.response.status)).toEqual(subs.map(() => 200));
    await s.t.app.services.scheduler.tick();
    for (const sub of subs) {
      const statuses = (await actionsOf(sub.id)).map((a) => a.status);
      expect(statuses.filter((x) => x === 'PENDING')).toEqual([]);
      expect(statuses.filter((x) => x === 'COMPLETE').length).toBeLessThanOrEqual(1);
    }
  });
});
