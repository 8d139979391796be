// What happens to a consult after it is made: a provider's decisions, recorded by the operator
// with `pnpm admin consult ...` (production) or simulated in the sandbox (PATCH .../simulate);
// the customer's cancel (DELETE); and the CONSULT / CONSULT_TASK events each change records,
// as the spec's ConsultEvent and ConsultTaskEvent.
import { validateResponse } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consult as consultCommand } from '../src/admin/consult-commands.js';
import type { Decision } from '../src/consults/consult-lifecycle.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { adminRefused } from './support/diagnostic-orders.js';
import { consultBody, consultEvents, createConsult, eventSummary, getConsult, importCareTeam, mondayAfter, PROVIDER, SAMPLE } from './support/consults.js';
import { createPatient } from './support/fixtures.js';
import { adminWithKeys } from './support/sealed-fields.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';
import { TEST_SECRETS_KEY } from './support/webhook-receiver.js';

let t: TestApp;
let acme: NewCustomer;
const monday = mondayAfter();
beforeAll(async () => {
  ({ t, acme } = await startTestAppWithCustomers());
  await importCareTeam(t, monday);
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;
const sandboxKey = () => acme.sandbox_api_key;
/** A new consult of a new patient: production's weight care intake, or the sandbox sample's. */
async function newConsult(apiKey = key(), over: Record<string, unknown> = {}): Promise<string> {
  const questionaire = apiKey === sandboxKey() ? { questionaire: SAMPLE.intake } : {};
  return (await createConsult(t, apiKey, consultBody(await createPatient(t, apiKey), { ...questionaire, ...over }))).id;
}
/** A decision in the service's process, as the commands make it (for stories about what follows). */
const decided = (id: string, decision: Decision) => t.app.services.units.run('test', (uow) => t.app.services.consultLifecycle.decide(uow, id, decision));
/** `pnpm admin consult <action>` as the operator runs it on the app's database; answers its printed JSON. */
async function decide(action: string, id: string, ...options: string[]) {
  const { stdout } = await adminWithKeys(t.database, { SECRETS_KEY: TEST_SECRETS_KEY }, ['consult', action, '--consult', id, ...options]);
  expect(stdout, `pnpm admin consult ${action} printed its result`).not.toBe('');
  return JSON.parse(stdout);
}
const decideRefused = (action: string, id: string, ...options: string[]) => adminRefused(t, ['consult', action, '--consult', id, ...options]);
const summaryOf = async (id: string, apiKey = key()) => eventSummary(await consultEvents(t, apiKey, id));
/** A consult in `status`: decided in the service's process, canceled by DELETE. */
async function consultIn(status: 'REVIEW' | 'issue' | 'completed' | 'rejected' | 'issueCompleted' | 'issueRejected' | 'canceled', apiKey = key()): Promise<string> {
  const id = await newConsult(apiKey);
  if (status === 'canceled') expect((await t.client(apiKey).DELETE('/consults/v0/consult/{consult_id}', { params: { path: { consult_id: id } } })).data).toBe(id);
  else if (status !== 'REVIEW') {
    if (status.startsWith('issue')) await decided(id, 'issue');
    if (status !== 'issue') await decided(id, status);
  }
  return id;
}

describe('a provider decision, recorded by pnpm admin consult', () => {
  it.concurrent.each<[string, 'REVIEW' | 'issue', Decision, string[]]>([
    ['complete', 'REVIEW', 'completed', ['CONSULT:REVIEW', 'CONSULT:completed']],
    ['reject', 'REVIEW', 'rejected', ['CONSULT:REVIEW', 'CONSULT:rejected']],
    ['issue', 'REVIEW', 'issue', ['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open']],
    ['resolve-issue', 'issue', 'issueCompleted', ['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open', 'CONSULT:issueCompleted', 'CONSULT_TASK:completed']],
    ['reject-issue', 'issue', 'issueRejected', ['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open', 'CONSULT:issueRejected', 'CONSULT_TASK:completed']],
  ])('consult %s moves a consult from %s to %s, with the notes for the patient and its events', async (action, from, to, events) => {
    const id = await consultIn(from);
    const before = await getConsult(t, key(), id);
    const out = await decide(action, id, '--notes', `Notes of ${action}.`);
    expect(out.consult).toEqual({ id, status: to, from, updated_at: expect.any(String) });
    const final = to !== 'issue';
    expect(await getConsult(t, key(), id)).toEqual({
      ...before,
      status: to,
      notes_to_patient: `Notes of ${action}.`,
      updated_at: out.consult.updated_at,
      ...(final ? { completed_at: out.consult.updated_at } : {}),
    });
    const recorded = await consultEvents(t, key(), id);
    expect(eventSummary(recorded)).toEqual(events);
    // The command prints the events it recorded, as they are delivered.
    expect(out.events.map((e: { envelope: unknown }) => e.envelope)).toEqual(recorded.slice(from === 'REVIEW' ? 1 : 3));
  });

  it('an issue opens a task for the patient (CONSULT_TASK open), which the resolution completes: the same task, each event as the spec has it', async () => {
    const id = await newConsult();
    await decided(id, 'issue');
    await decided(id, 'issueCompleted');
    const [review, issue, open, resolved, completed] = await consultEvents(t, key(), id);
    const patient = (await getConsult(t, key(), id)).patient_token;
    expect(review!.details).toEqual({ consult_id: id, patient_token: patient, status: 'REVIEW', message: 'The consult is waiting for a provider.' });
    expect(issue!.details).toEqual({ consult_id: id, patient_token: patient, status: 'issue', message: 'The provider needs something from the patient.' });
    expect(open!.details).toEqual({ consult_id: id, task_id: expect.stringMatching(/^[0-9a-f]{24}$/), task_type: 'patient_follow_up', status: 'open', message: 'The patient has a task to complete for the consult.' });
    expect(resolved!.details).toEqual({ consult_id: id, patient_token: patient, status: 'issueCompleted', message: 'The issue was resolved and the consult completed.' });
    expect(completed!.details).toEqual({ ...open!.details, status: 'completed', message: 'The task is completed.' });
  });

  it.each<[string, 'REVIEW' | 'issue' | 'completed' | 'canceled', string]>([
    ['complete', 'completed', 'A consult in completed cannot become completed.'],
    ['issue', 'completed', 'A consult in completed cannot become issue.'],
    ['resolve-issue', 'REVIEW', 'A consult in REVIEW cannot become issueCompleted.'],
    ['reject-issue', 'REVIEW', 'A consult in REVIEW cannot become issueRejected.'],
    ['issue', 'issue', 'A consult in issue cannot become issue.'],
    ['complete', 'issue', 'A consult in issue cannot become completed.'],
    ['complete', 'canceled', 'A consult in canceled cannot become completed.'],
  ])('consult %s of a %s consult is refused, and nothing changes', async (action, status, message) => {
    const id = await consultIn(status);
    const [before, events] = [await getConsult(t, key(), id), await summaryOf(id)];
    await expect(consultCommand(t.app.services, [action, '--consult', id])).rejects.toThrow(message);
    expect(await getConsult(t, key(), id)).toEqual(before);
    expect(await summaryOf(id)).toEqual(events);
  });

  it('a refused decision exits 1 with the reason on stderr; an unknown consult too', async () => {
    const id = await consultIn('completed');
    const before = await getConsult(t, key(), id);
    expect(await decideRefused('reject', id)).toMatchObject({ code: 1, stderr: expect.stringContaining('A consult in completed cannot become rejected.') });
    expect(await getConsult(t, key(), id)).toEqual(before);
    expect(await decideRefused('complete', 'deadbeefdeadbeefdeadbeef')).toMatchObject({ code: 1, stderr: expect.stringContaining('Consult deadbeefdeadbeefdeadbeef not found.') });
  });

  it('--provider names who decided a consult that had none: kept with it, and listed under that name', async () => {
    const id = await newConsult();
    const out = await decide('complete', id, '--provider', PROVIDER.ben);
    expect(out.consult.status).toBe('completed');
    expect((await getConsult(t, key(), id)).provider).toEqual({ npi: expect.any(Number), first_name: 'Ben', last_name: 'Okoro', title: 'NP' });
    const { data } = await t.client(key()).GET('/consults/v0', { params: { query: { provider_name: 'okoro' } } });
    expect(data!.map((c) => [c.id, c.provider?.id])).toEqual([[id, PROVIDER.ben]]);
  });

  it("--provider leaves the provider of a booked appointment as it is; one of no provider of the care team exits 2", async () => {
    const id = await newConsult(key(), { appointment: { appt_date: `${monday}T16:00:00.000Z`, duration: 1800, provider_id: PROVIDER.ava } });
    await decide('issue', id, '--provider', PROVIDER.ben);
    expect((await getConsult(t, key(), id))).toMatchObject({ status: 'issue', provider: { first_name: 'Ava', last_name: 'Quill' } });
    const refused = await decideRefused('resolve-issue', id, '--provider', 'deadbeefdeadbeefdeadbeef');
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('no provider deadbeefdeadbeefdeadbeef in the production care team') });
    expect((await getConsult(t, key(), id)).status).toBe('issue');
  });
});

/** DELETE as the customer sends it; the answer is checked against the spec. */
async function cancel(id: string, apiKey = key()): Promise<{ status: number; id?: string; error?: unknown }> {
  const path = `/consults/v0/consult/${id}`;
  const response = await fetch(t.baseUrl + path, { method: 'DELETE', headers: { authorization: `ApiKey ${apiKey}` } });
  const body = (await response.json()) as unknown;
  expect(validateResponse({ method: 'DELETE', url: path, status: response.status, contentType: response.headers.get('content-type'), body })).toEqual([]);
  return response.status === 200 ? { status: 200, id: body as string } : { status: response.status, error: body };
}

describe('canceling a consult', () => {
  it("answers 200 with the consult's id as a JSON string, as the spec documents it (application/json)", async () => {
    const id = await newConsult();
    const { data, response } = await t.client(key()).DELETE('/consults/v0/consult/{consult_id}', { params: { path: { consult_id: id } } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(data).toBe(id);
  });

  it('waiting for review: it is canceled, with its CONSULT event; canceling again answers 200 and changes nothing', async () => {
    const id = await newConsult();
    expect(await cancel(id)).toEqual({ status: 200, id });
    const canceled = await getConsult(t, key(), id);
    expect(canceled.status).toBe('canceled');
    expect(canceled).not.toHaveProperty('completed_at');
    expect(await summaryOf(id)).toEqual(['CONSULT:REVIEW', 'CONSULT:canceled']);
    expect(await cancel(id)).toEqual({ status: 200, id });
    expect(await getConsult(t, key(), id)).toEqual(canceled);
    expect(await summaryOf(id)).toEqual(['CONSULT:REVIEW', 'CONSULT:canceled']);
  });

  it("with an issue open: it is canceled, and the patient's task with it (CONSULT_TASK canceled)", async () => {
    const id = await consultIn('issue');
    expect(await cancel(id)).toEqual({ status: 200, id });
    expect((await getConsult(t, key(), id)).status).toBe('canceled');
    const events = await consultEvents(t, key(), id);
    expect(eventSummary(events)).toEqual(['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open', 'CONSULT:canceled', 'CONSULT_TASK:canceled']);
    expect(events[4]?.details.task_id).toBe(events[2]!.details.task_id);
  });

  it.each(['completed', 'rejected', 'issueCompleted', 'issueRejected'] as const)('already %s: 409, and it stays as it was', async (status) => {
    const id = await consultIn(status);
    const before = await getConsult(t, key(), id);
    expect(await cancel(id)).toEqual({ status: 409, error: { statusCode: 409, error: 'Conflict', message: `A consult in ${status} cannot be canceled.`, request_id: expect.any(String) } });
    expect(await getConsult(t, key(), id)).toEqual(before);
  });
});

describe('simulating a decision in the sandbox', () => {
  const simulate = (id: string, body: { status: Decision; notes?: string }, apiKey = sandboxKey()) =>
    t.client(apiKey).PATCH('/consults/v0/consult/{consult_id}/simulate', { params: { path: { consult_id: id } }, body });

  it.each<[Decision, 'REVIEW' | 'issue', string[]]>([
    ['completed', 'REVIEW', ['CONSULT:REVIEW', 'CONSULT:completed']],
    ['issue', 'REVIEW', ['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open']],
    ['rejected', 'REVIEW', ['CONSULT:REVIEW', 'CONSULT:rejected']],
    ['issueCompleted', 'issue', ['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open', 'CONSULT:issueCompleted', 'CONSULT_TASK:completed']],
    ['issueRejected', 'issue', ['CONSULT:REVIEW', 'CONSULT:issue', 'CONSULT_TASK:open', 'CONSULT:issueRejected', 'CONSULT_TASK:completed']],
  ])('moves a consult to %s from %s at once, answering the move, with its events', async (status, from, events) => {
    const id = await newConsult(sandboxKey());
    if (from === 'issue') expect((await simulate(id, { status: 'issue' })).data).toEqual({ newStatus: 'issue', statusFlowFromTo: 'REVIEW -> issue' });
    const { data, response } = await simulate(id, { status, notes: `Simulated ${status}.` });
    expect(response.status).toBe(200);
    expect(data).toEqual({ newStatus: status, statusFlowFromTo: `${from} -> ${status}` });
    expect(await getConsult(t, sandboxKey(), id)).toMatchObject({ status, notes_to_patient: `Simulated ${status}.` });
    expect(await summaryOf(id, sandboxKey())).toEqual(events);
  });

  it.each<['REVIEW' | 'issue' | 'completed' | 'canceled', Decision, string]>([
    ['completed', 'issue', 'A consult in completed cannot become issue.'],
    ['REVIEW', 'issueCompleted', 'A consult in REVIEW cannot become issueCompleted.'],
    ['issue', 'rejected', 'A consult in issue cannot become rejected.'],
    ['canceled', 'completed', 'A consult in canceled cannot become completed.'],
  ])('of a %s consult to %s answers 409, and nothing changes', async (from, status, message) => {
    const id = await consultIn(from, sandboxKey());
    const [before, events] = [await getConsult(t, sandboxKey(), id), await summaryOf(id, sandboxKey())];
    const { error, response } = await simulate(id, { status });
    expect(response.status).toBe(409);
    expect(error).toEqual({ statusCode: 409, error: 'Conflict', message });
    expect(await getConsult(t, sandboxKey(), id)).toEqual(before);
    expect(await summaryOf(id, sandboxKey())).toEqual(events);
  });

  it('with a production key answers 403, and the production consult stays as it was', async () => {
    const id = await newConsult();
    const before = await getConsult(t, key(), id);
    const { error, response } = await simulate(id, { status: 'completed' }, key());
    expect(response.status).toBe(403);
    expect(error).toEqual({ statusCode: 403, error: 'Forbidden', message: 'This operation is available in the sandbox only.' });
    expect(await getConsult(t, key(), id)).toEqual(before);
  });
});
