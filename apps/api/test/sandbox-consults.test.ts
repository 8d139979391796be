// Consults in the sandbox: the simulated provider (SANDBOX_STEP_DELAY_MS=0) decides a sandbox
// consult by itself, and the integrator's webhook endpoint receives each CONSULT and
// CONSULT_TASK event, signed; `sandbox:issue` and `sandbox:reject` in `metadata` force the
// other paths. Production consults are left to providers.
import { verifyWebhook } from '@pharmacy/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { addDays, appointmentAt, consultBody, createConsult, eventSummary, getConsult, importCareTeam, mondayAfter, SAMPLE, schemaProblems, slotsOf, type ConsultEnvelope } from './support/consults.js';
import { createPatient } from './support/fixtures.js';
import { startSandboxWithReceiver, type SandboxWithReceiver } from './support/sandbox-receiver.js';
import type { TestApp } from './support/test-app.js';
import type { Receiver } from './support/webhook-receiver.js';

let t: TestApp;
let acme: NewCustomer;
let receiver: Receiver;
let secret: string;
const monday = mondayAfter();

let sandbox: SandboxWithReceiver | undefined;
beforeAll(async () => {
  sandbox = await startSandboxWithReceiver();
  ({ t, acme, receiver, secret } = sandbox);
});
afterAll(async () => sandbox?.close());

const key = () => acme.sandbox_api_key;
type Delivered = ConsultEnvelope & { webhookId: string };

/** The consult's events as the customer's feed lists them: recording order (checked against the spec by the typed client). */
async function feedOf(consultId: string): Promise<ConsultEnvelope[]> {
  const { data } = await t.client(key()).GET('/v1/webhook_events', { params: { query: { limit: 100 } } });
  return data!.results.map((r) => r.payload as unknown as ConsultEnvelope).filter((p) => p.callback_type.startsWith('CONSULT') && p.details.consult_id === consultId);
}

/**
 * The consult's deliveries so far, each verified with the client's helper and the endpoint's
 * secret and against the spec's event schema, once per webhook-id (deliveries are at least once).
 */
function deliveriesOf(consultId: string): Delivered[] {
  const byId = new Map<string, Delivered>();
  for (const request of receiver.received) {
    const event = verifyWebhook({ headers: request.headers as Record<string, string>, body: request.body, secret }) as unknown as ConsultEnvelope;
    const webhookId = request.headers['webhook-id'] as string;
    if (event.details?.consult_id !== consultId || byId.has(webhookId)) continue;
    expect(schemaProblems(event.callback_type === 'CONSULT' ? 'ConsultEvent' : 'ConsultTaskEvent', event)).toEqual([]);
    byId.set(webhookId, { ...event, webhookId });
  }
  return [...byId.values()];
}

/**
 * Waits until `count` deliveries of the consult arrived, the last decision among them; answers
 * them in the order they happened: the envelopes' `timestamp` (seconds, as receivers order
 * them), and within a second as the feed lists them (recording order).
 */
async function deliveredUntil(consultId: string, count: number, last: string): Promise<Delivered[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const events = deliveriesOf(consultId);
    if (events.length >= count && eventSummary(events).includes(last)) break;
    if (Date.now() > deadline) throw new Error(`deliveries so far: ${eventSummary(events).join(', ')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  // Any delivery beyond `count` would be a duplicate or an extra decision: give stragglers a moment.
  await new Promise((r) => setTimeout(r, 150));
  const feed = (await feedOf(consultId)).map((e) => JSON.stringify(e));
  const position = (e: Delivered) => feed.indexOf(JSON.stringify(envelope(e)));
  const events = deliveriesOf(consultId);
  for (const e of events) expect(position(e), `${e.callback_type} ${e.details.status} is in the feed`).toBeGreaterThanOrEqual(0);
  return events.sort((a, b) => a.timestamp - b.timestamp || position(a) - position(b));
}

const envelope = ({ webhookId: _id, ...event }: Delivered): ConsultEnvelope => event;

describe('a sandbox consult', () => {
  it('booked at a slot of the sample care team, is completed by the simulated provider: CONSULT REVIEW, then completed, each delivered signed', async () => {
    const [slot] = await slotsOf(t, key(), { questionnaire: SAMPLE.intake, state: 'CA', start: `${monday}T00:00:00Z`, end: `${addDays(monday, 1)}T00:00:00Z` });
    const patient = await createPatient(t, key());
    const { id } = await createConsult(t, key(), consultBody(patient, { questionaire: SAMPLE.intake, appointment: appointmentAt(slot!), metadata: 'order-1' }));
    const events = await deliveredUntil(id, 2, 'CONSULT:completed');
    expect(eventSummary(events)).toEqual(['CONSULT:REVIEW', 'CONSULT:completed']);
    expect(events.map((e) => e.details)).toEqual([
      { consult_id: id, patient_token: patient, status: 'REVIEW', message: 'The consult is waiting for a provider.' },
      { consult_id: id, patient_token: patient, status: 'completed', message: 'The provider completed the consult.' },
    ]);
    expect(await feedOf(id)).toEqual(events.map(envelope));
    expect(await getConsult(t, key(), id)).toMatchObject({
      status: 'completed',
      notes_to_patient: 'Reviewed by the sandbox provider.',
      appointment: { scheduled: true, start: slot!.start, end: slot!.end },
      provider: { first_name: slot!.provider_name.split(' ')[0] },
    });
  });

  it('marked sandbox:issue: the provider raises an issue with a task for the patient, which is then resolved and the consult completed', async () => {
    const patient = await createPatient(t, key());
    const { id } = await createConsult(t, key(), consultBody(patient, { questionaire: SAMPLE.intake, metadata: 'member-7 sandbox:issue' }));
    const events = await deliveredUntil(id, 5, 'CONSULT:issueCompleted');
    expect(eventSummary(events)).toEqual(['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open', 'CONSULT:issueCompleted', 'CONSULT_TASK:completed']);
    const [open, completed] = events.filter((e) => e.callback_type === 'CONSULT_TASK');
    expect(open!.details).toEqual({ consult_id: id, task_id: expect.stringMatching(/^[0-9a-f]{24}$/), task_type: 'patient_follow_up', status: 'open', message: 'The patient has a task to complete for the consult.' });
    expect(completed!.details).toEqual({ ...open!.details, status: 'completed', message: 'The task is completed.' });
    expect(new Set(events.map((e) => e.webhookId)).size).toBe(5);
    expect(await feedOf(id)).toEqual(events.map(envelope));
    expect(await getConsult(t, key(), id)).toMatchObject({ status: 'issueCompleted', notes_to_patient: 'Please upload a photo ID (sandbox:issue).', completed_at: expect.any(String) });
  });

  it('marked sandbox:reject: the provider rejects it', async () => {
    const { id } = await createConsult(t, key(), consultBody(await createPatient(t, key()), { questionaire: SAMPLE.intake, metadata: 'sandbox:reject' }));
    const events = await deliveredUntil(id, 2, 'CONSULT:rejected');
    expect(eventSummary(events)).toEqual(['CONSULT:REVIEW', 'CONSULT:rejected']);
    expect(await feedOf(id)).toEqual(events.map(envelope));
    expect(await getConsult(t, key(), id)).toMatchObject({ status: 'rejected', completed_at: expect.any(String) });
  });

  it('is the only kind the simulated provider decides: a production consult waits for a provider', async () => {
    await importCareTeam(t, monday);
    const production = acme.production_api_key;
    const { id } = await createConsult(t, production, consultBody(await createPatient(t, production)));
    const sandbox = await createConsult(t, key(), consultBody(await createPatient(t, key()), { questionaire: SAMPLE.intake }));
    await deliveredUntil(sandbox.id, 2, 'CONSULT:completed');
    expect((await getConsult(t, production, id)).status).toBe('REVIEW');
    expect(await t.database.handle.db.selectFrom('sandbox_steps').select('id').where('subject_token', '=', id).execute()).toEqual([]);
  });
});
