// Reading consults (getConsult, listConsults): one consult in the real platform's shape, the
// listing with every filter, sort and paging of seed 4.7, and the walls between customers and
// environments. Six consults of Acme's in production, made in this order:
//   c1 Alice Archer, weight, unscheduled             REVIEW
//   c2 Bruno Baker,  weight, Ava  week 1 16:00Z      REVIEW
//   c3 Carla Cortez, skin,   Dev  week 1 16:00Z      REVIEW
//   c4 Alice Archer, weight, Ben  week 2 16:00Z      completed (after c6 was made)
//   c5 Bruno Baker,  weight, unscheduled             canceled (last)
//   c6 Dora Dunn,    weight, Cleo week 1 09:00 New York (before 16:00Z)   REVIEW
import { createPlatformClient } from '@pharmacy/client';
import { contractMiddleware } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { addDays, at, consultBody, createConsult, getConsult, importCareTeam, inlinePatient, mondayAfter, NEW_YORK, npi, PROGRAM, PROVIDER, QUESTIONNAIRE, SAMPLE, shippingAddress, type Consult } from './support/consults.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
const monday = mondayAfter();
const week1 = `${monday}T16:00:00.000Z`;
const week2 = `${addDays(monday, 7)}T16:00:00.000Z`;
const cleoAt = at(monday, '09:00', NEW_YORK);
const ids: Record<'c1' | 'c2' | 'c3' | 'c4' | 'c5' | 'c6' | 'globex' | 'sandbox', string> = { c1: '', c2: '', c3: '', c4: '', c5: '', c6: '', globex: '', sandbox: '' };
const tokens = { alice: '', bruno: '' };

const key = () => acme.production_api_key;
const person = (first: string, last: string) => ({ ...inlinePatient(first), last_name: last });
const slot = (appt_date: string, duration: number, state = 'CA') => ({ appointment: { appt_date, duration }, shipping_address: shippingAddress(state) });

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
  await importCareTeam(t, monday);
  const made = async (patient: ReturnType<typeof person>, over: Record<string, unknown> = {}) => createConsult(t, key(), consultBody(patient, over));
  const c1 = await made(person('Alice', 'Archer'));
  ids.c1 = c1.id;
  tokens.alice = c1.patient;
  const c2 = await made(person('Bruno', 'Baker'), slot(week1, 1800));
  ids.c2 = c2.id;
  tokens.bruno = c2.patient;
  ids.c3 = (await made(person('Carla', 'Cortez'), { questionaire: QUESTIONNAIRE.skin, ...slot(week1, 1200) })).id;
  ids.c4 = (await made(person('Alice', 'Archer'), slot(week2, 1800, 'HI'))).id;
  ids.c5 = (await made(person('Bruno', 'Baker'))).id;
  ids.c6 = (await made(person('Dora', 'Dunn'), slot(cleoAt, 1800, 'NY'))).id;
  await t.app.services.units.run('test', (uow) => t.app.services.consultLifecycle.decide(uow, ids.c4, 'completed'));
  expect((await t.client(key()).DELETE('/consults/v0/consult/{consult_id}', { params: { path: { consult_id: ids.c5 } } })).data).toBe(ids.c5);
  ids.globex = (await createConsult(t, globex.production_api_key, consultBody(person('Gus', 'Globex'), slot(`${monday}T16:30:00.000Z`, 1800)))).id;
  ids.sandbox = (await createConsult(t, acme.sandbox_api_key, consultBody(person('Sandy', 'Box'), { questionaire: SAMPLE.intake }))).id;
});
afterAll(async () => t?.close());

type Name = keyof typeof ids;
const nameOf = (id: string) => (Object.keys(ids) as Name[]).find((n) => ids[n] === id) ?? id;
/** The listing, as the names of its consults (every answer checked against the spec by the typed client). */
async function list(query: Record<string, unknown> = {}, apiKey = key()): Promise<string[]> {
  const { data, error, response } = await t.client(apiKey).GET('/consults/v0', { params: { query: query as never } });
  expect(response.status, JSON.stringify(error)).toBe(200);
  return data!.map((c) => nameOf(c.id));
}
/** Names tied on the sort field, in the order of their ids. */
const byId = (direction: 'asc' | 'desc', ...names: Name[]) => [...names].sort((a, b) => (ids[a] < ids[b] ? -1 : 1) * (direction === 'asc' ? 1 : -1));
const notFound = { statusCode: 404, error: 'Not Found', message: 'Consult not found. (You may not be authorized to it)' };

describe('a consult', () => {
  it('is read in the real shape: its program, the provider nested, the appointment with its start and end', async () => {
    const consult = await getConsult(t, key(), ids.c2);
    expect(consult).toEqual({
      id: ids.c2,
      status: 'REVIEW',
      program: { id: PROGRAM.weight, name: 'Weight care' },
      appointment: { scheduled: true, start: week1, end: `${monday}T16:30:00.000Z` },
      lab_tests: [],
      provider: { npi: Number(npi('100000001')), first_name: 'Ava', last_name: 'Quill', title: 'MD' },
      patient_token: tokens.bruno,
      state: 'CA',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: consult.created_at,
    });
    const completed = await getConsult(t, key(), ids.c4);
    expect(completed).toMatchObject({ status: 'completed', completed_at: completed.updated_at, state: 'HI', provider: { first_name: 'Ben', last_name: 'Okoro', title: 'NP' } });
    // Its id in upper case is the same consult.
    expect(await getConsult(t, key(), ids.c2.toUpperCase())).toEqual(consult);
  });

  it('is listed in the real shape too, with its provider id and our additions', async () => {
    const { data } = await t.client(key()).GET('/consults/v0', { params: { query: { status: 'REVIEW', program_id: PROGRAM.weight, scheduled: true, provider_name: 'ava' } } });
    const detail = await getConsult(t, key(), ids.c2);
    expect(data).toEqual<Consult[]>([
      {
        id: ids.c2,
        status: 'REVIEW',
        patient_token: tokens.bruno,
        provider: { id: PROVIDER.ava, npi: Number(npi('100000001')), first_name: 'Ava', last_name: 'Quill', title: 'MD' },
        program: { id: PROGRAM.weight, name: 'Weight care' },
        lab_tests: [],
        appointment: { start: week1, end: `${monday}T16:30:00.000Z` },
        state: 'CA',
        bundled: false,
        created_at: detail.created_at,
        updated_at: detail.updated_at,
      },
    ]);
  });

  it.each<[string, () => { apiKey: string; sandboxKey: string }, () => string]>([
    ["another customer's", () => ({ apiKey: globex.production_api_key, sandboxKey: globex.sandbox_api_key }), () => ids.c2],
    ["the other environment's", () => ({ apiKey: acme.sandbox_api_key, sandboxKey: acme.sandbox_api_key }), () => ids.c2],
    ['an unknown one', () => ({ apiKey: acme.production_api_key, sandboxKey: acme.sandbox_api_key }), () => 'deadbeefdeadbeefdeadbeef'],
  ])('%s is not found: get, cancel and simulate (with a sandbox key) answer 404 with the real message, and nothing changes', async (_, keys, id) => {
    const { apiKey, sandboxKey } = keys();
    const path = { params: { path: { consult_id: id() } } };
    expect((await t.client(apiKey).GET('/consults/v0/consult/{consult_id}', path)).error).toEqual(notFound);
    expect((await t.client(apiKey).DELETE('/consults/v0/consult/{consult_id}', path)).error).toEqual(notFound);
    expect((await t.client(sandboxKey).PATCH('/consults/v0/consult/{consult_id}/simulate', { ...path, body: { status: 'completed' } })).error).toEqual(notFound);
    expect((await getConsult(t, key(), ids.c2)).status).toBe('REVIEW');
  });

  it("of another customer's sandbox is not theirs to simulate (404); a consult id that is not 24 hex characters answers 400", async () => {
    const simulate = await t.client(globex.sandbox_api_key).PATCH('/consults/v0/consult/{consult_id}/simulate', { params: { path: { consult_id: ids.sandbox } }, body: { status: 'completed' } });
    expect(simulate.error).toEqual(notFound);
    expect((await getConsult(t, acme.sandbox_api_key, ids.sandbox)).status).toBe('REVIEW');
    const malformed = await t.client(key()).GET('/consults/v0/consult/{consult_id}', { params: { path: { consult_id: 'c2' } } });
    expect(malformed.response.status).toBe(400);
  });
});

describe('the listing', () => {
  it("holds the caller's consults of the key's environment only, newest first; a bearer token lists the same", async () => {
    expect(await list()).toEqual(['c6', 'c5', 'c4', 'c3', 'c2', 'c1']);
    expect(await list({}, globex.production_api_key)).toEqual(['globex']);
    expect(await list({}, acme.sandbox_api_key)).toEqual(['sandbox']);
    const platform = createPlatformClient({ baseUrl: t.baseUrl, clientId: acme.production_client_id, clientSecret: acme.production_client_secret, audience: acme.audience, retry: false, middleware: [contractMiddleware()] });
    expect((await platform.GET('/consults/v0', {})).data!.map((c) => nameOf(c.id))).toEqual(['c6', 'c5', 'c4', 'c3', 'c2', 'c1']);
  });

  it.each<[string, () => Record<string, unknown>, string[]]>([
    ['program_id', () => ({ program_id: PROGRAM.skin }), ['c3']],
    ['program_id in upper case', () => ({ program_id: PROGRAM.weight.toUpperCase() }), ['c6', 'c5', 'c4', 'c2', 'c1']],
    ['program_id of no program', () => ({ program_id: 'deadbeefdeadbeefdeadbeef' }), []],
    ['provider_name, a substring in any case', () => ({ provider_name: 'QUILL' }), ['c2']],
    ['provider_name across first and last name', () => ({ provider_name: 'n oko' }), ['c4']],
    ['provider_name matching several', () => ({ provider_name: 'E' }), ['c6', 'c4', 'c3']],
    ['provider_name with a LIKE wildcard, taken literally', () => ({ provider_name: '%' }), []],
    ['patient_name, a substring in any case', () => ({ patient_name: 'archer' }), ['c4', 'c1']],
    ['patient_name across first and last name', () => ({ patient_name: 'O B' }), ['c5', 'c2']],
    ['patient_name with a LIKE wildcard, taken literally', () => ({ patient_name: '_' }), []],
    ['patient_token', () => ({ patient_token: tokens.alice }), ['c4', 'c1']],
    ['scheduled=true', () => ({ scheduled: true }), ['c6', 'c4', 'c3', 'c2']],
    ['scheduled=false', () => ({ scheduled: false }), ['c5', 'c1']],
    ['status REVIEW', () => ({ status: 'REVIEW' }), ['c6', 'c3', 'c2', 'c1']],
    ['status completed', () => ({ status: 'completed' }), ['c4']],
    ['status canceled', () => ({ status: 'canceled' }), ['c5']],
    ['status issue', () => ({ status: 'issue' }), []],
    ['bundled=false', () => ({ bundled: false }), ['c6', 'c5', 'c4', 'c3', 'c2', 'c1']],
    ['bundled=true', () => ({ bundled: true }), []],
    ['appointment_start_date: starting at or after it', () => ({ appointment_start_date: week1 }), ['c4', 'c3', 'c2']],
    ['appointment_end_date: starting before it', () => ({ appointment_end_date: week1 }), ['c6']],
    ['both dates', () => ({ appointment_start_date: cleoAt, appointment_end_date: week2 }), ['c6', 'c3', 'c2']],
    ['appointment_start_date without milliseconds', () => ({ appointment_start_date: week1.replace('.000Z', 'Z') }), ['c4', 'c3', 'c2']],
    ['appointment_start_date in an offset (09:00 in Phoenix is 16:00Z)', () => ({ appointment_start_date: `${monday}T09:00:00-07:00` }), ['c4', 'c3', 'c2']],
    ['appointment_end_date in an offset', () => ({ appointment_end_date: `${monday}T09:00:00-07:00` }), ['c6']],
    ['several filters at once', () => ({ program_id: PROGRAM.weight, scheduled: true, status: 'REVIEW' }), ['c6', 'c2']],
  ])('filtered by %s', async (_, query, expected) => {
    expect(await list(query())).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, { key: string; message: string }]>([
    ['appointment_end_date before appointment_start_date', { appointment_start_date: week2, appointment_end_date: week1 }, { key: 'appointment_end_date', message: 'must be later than appointment_start_date' }],
    ['appointment_end_date at appointment_start_date', { appointment_start_date: week1, appointment_end_date: week1 }, { key: 'appointment_end_date', message: 'must be later than appointment_start_date' }],
    ['a program_id that is not 24 hex characters', { program_id: 'weight' }, { key: 'program_id', message: 'must be 24 hexadecimal digits' }],
    ['scheduled that is no boolean', { scheduled: 'yes' }, { key: 'scheduled', message: 'must be a boolean' }],
    ['an unknown status', { status: 'done' }, { key: 'status', message: 'must be one of [REVIEW, completed, issue, rejected, issueCompleted, issueRejected, canceled]' }],
    ['limit 0', { limit: 0 }, { key: 'limit', message: 'must be greater than or equal to 1' }],
    ['limit 101', { limit: 101 }, { key: 'limit', message: 'must be less than or equal to 100' }],
    ['page_number 0', { page_number: 0 }, { key: 'page_number', message: 'must be greater than or equal to 1' }],
    ['a negative skip', { skip: -1 }, { key: 'skip', message: 'must be greater than or equal to 0' }],
    ['an unknown sort field', { sort: 'name' }, { key: 'sort', message: 'must be one of [created_at, updated_at, appointment_start, status]' }],
    ['an unknown direction', { direction: 'up' }, { key: 'direction', message: 'must be one of [asc, desc]' }],
  ])('refuses %s with 400', async (_, query, problem) => {
    const { error, response } = await t.client(key()).GET('/consults/v0', { params: { query: query as never } });
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: [problem] });
  });

  it.each<[string, Record<string, unknown>, () => string[]]>([
    ['created_at asc', { sort: 'created_at', direction: 'asc' }, () => ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']],
    ['created_at desc (the default)', {}, () => ['c6', 'c5', 'c4', 'c3', 'c2', 'c1']],
    ['updated_at asc', { sort: 'updated_at', direction: 'asc' }, () => ['c1', 'c2', 'c3', 'c6', 'c4', 'c5']],
    ['updated_at desc', { sort: 'updated_at' }, () => ['c5', 'c4', 'c6', 'c3', 'c2', 'c1']],
    ['appointment_start asc, the tie at 16:00Z by id', { sort: 'appointment_start', direction: 'asc', scheduled: true }, () => ['c6', ...byId('asc', 'c2', 'c3'), 'c4']],
    ['appointment_start desc, the tie by id', { sort: 'appointment_start', direction: 'desc', scheduled: true }, () => ['c4', ...byId('desc', 'c2', 'c3'), 'c6']],
    ['status asc (code point order), ties by id', { sort: 'status', direction: 'asc' }, () => [...byId('asc', 'c1', 'c2', 'c3', 'c6'), 'c5', 'c4']],
    ['status desc, ties by id', { sort: 'status', direction: 'desc' }, () => ['c4', 'c5', ...byId('desc', 'c1', 'c2', 'c3', 'c6')]],
  ])('sorted by %s', async (_, query, expected) => {
    expect(await list(query)).toEqual(expected());
  });

  it.each<[string, 'asc' | 'desc', () => string[]]>([
    ['after every scheduled one, ascending', 'asc', () => ['c6', '16:00', '16:00', 'c4', ...byId('asc', 'c1', 'c5')]],
    ['before every scheduled one, descending', 'desc', () => [...byId('desc', 'c1', 'c5'), 'c4', '16:00', '16:00', 'c6']],
  ])('sorted by appointment_start, consults without one come %s, on both databases', async (_, direction, expected) => {
    const tie = new Set([ids.c2, ids.c3].map(nameOf));
    const names = (await list({ sort: 'appointment_start', direction })).map((n) => (tie.has(n) ? '16:00' : n));
    expect(names).toEqual(expected());
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['limit 2: the first page', { limit: 2 }, ['c1', 'c2']],
    ['limit 2, page_number 2', { limit: 2, page_number: 2 }, ['c3', 'c4']],
    ['limit 2, page_number 3', { limit: 2, page_number: 3 }, ['c5', 'c6']],
    ['limit 2, page_number 4: past the end', { limit: 2, page_number: 4 }, []],
    ['skip 1, limit 2', { skip: 1, limit: 2 }, ['c2', 'c3']],
    ['skip 1, limit 2, page_number 2: skip + one page', { skip: 1, limit: 2, page_number: 2 }, ['c4', 'c5']],
    ['skip 5', { skip: 5 }, ['c6']],
    ['skip 6', { skip: 6 }, []],
    ['limit 100 and page_number 1, the most', { limit: 100, page_number: 1 }, ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']],
  ])('paged: %s', async (_, query, expected) => {
    expect(await list({ sort: 'created_at', direction: 'asc', ...query })).toEqual(expected);
  });
});
