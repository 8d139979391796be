// The questionnaires and the schedule (seed 4.7): open slots computed from the care team of
// the caller's environment (a team of the tests' own, imported into production), each
// provider's hours in its own zone, the slot length, days off, licences, booked appointments
// and daylight saving; and every rule of seed 4.7 and part 8 as a 400 or 404.
import { createPlatformClient } from '@pharmacy/client';
import { contractMiddleware } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { addDays, appointmentAt, consultBody, createConsult, importCareTeam, mondayAfter, PROGRAM, PROVIDER, QUESTIONNAIRE, SAMPLE, schedule, slotsOf, UNKNOWN_ID, type Slot } from './support/consults.js';
import { createPatient } from './support/fixtures.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;
/** A week-1 Monday; Phoenix is UTC-7 all year and Honolulu UTC-10, so their hours are fixed UTC times. */
const monday = mondayAfter();
const day = (date: string) => ({ start: `${date}T00:00:00Z`, end: `${addDays(date, 1)}T00:00:00Z` });
const intake = (over: Record<string, unknown> = {}) => ({ ...day(monday), questionnaire: QUESTIONNAIRE.intake, state: 'CA', ...over });
/** Each slot as `<date>T<HH:MM>Z <provider>` (and its length when not 30 minutes). */
const short = (slots: Slot[]) => slots.map((s) => `${s.start.slice(0, 16)}Z ${s.provider_name}${s.duration === 30 ? '' : ` ${s.duration}m`}`);
const on = (date: string, ...times: string[]) => times.map((time) => `${date}T${time}`);

describe('the questionnaires', () => {
  it("the sandbox lists the sample care team's, by name, each with its program, length and the states its providers are licensed in", async () => {
    const { data, response } = await t.client(acme.sandbox_api_key).GET('/consults/v0/questionnaires');
    expect(response.status).toBe(200);
    expect(data!.map((q) => q.name)).toEqual(['Birth control consultation', 'Menopause consultation', 'Urgent care visit', 'Weight management follow-up', 'Weight management intake']);
    expect(data!.at(-1)).toEqual({
      id: SAMPLE.intake,
      name: 'Weight management intake',
      program: { id: SAMPLE.weight, name: 'Weight management' },
      default_duration_minutes: 30,
      licensed_states: ['AK', 'AZ', 'CA', 'CO', 'CT', 'IL', 'MA', 'MN', 'MO', 'NJ', 'NM', 'NV', 'NY', 'OR', 'PA', 'TX', 'UT', 'WA', 'WI', 'WY'],
    });
  });

  it('production lists none until the operator imports a care team, then exactly its questionnaires (by a bearer token too)', async () => {
    const list = () => t.client(key()).GET('/consults/v0/questionnaires');
    expect((await list()).data).toEqual([]);
    await importCareTeam(t, monday);
    const expected = [
      { id: QUESTIONNAIRE.skin, name: 'Acne review', program: { id: PROGRAM.skin, name: 'Skin care' }, default_duration_minutes: 20, licensed_states: ['CA', 'NY'] },
      { id: QUESTIONNAIRE.intake, name: 'Weight care intake', program: { id: PROGRAM.weight, name: 'Weight care' }, default_duration_minutes: 30, licensed_states: ['AZ', 'CA', 'HI', 'NY'] },
    ];
    expect((await list()).data).toEqual(expected);
    const platform = createPlatformClient({
      baseUrl: t.baseUrl,
      clientId: acme.production_client_id,
      clientSecret: acme.production_client_secret,
      audience: acme.audience,
      retry: false,
      middleware: [contractMiddleware()],
    });
    expect((await platform.GET('/consults/v0/questionnaires')).data).toEqual(expected);
    // The sandbox keeps its sample.
    expect((await t.client(acme.sandbox_api_key).GET('/consults/v0/questionnaires')).data).toHaveLength(5);
  });
});

describe('the open slots of a care team', () => {
  beforeAll(async () => importCareTeam(t, monday));

  it("are cut from each provider's hours in its own zone, earliest first, then by provider; each slot in full", async () => {
    const slots = await slotsOf(t, key(), intake());
    // Ava works 09:00-11:00 in Phoenix (16:00-18:00Z), Ben 06:00-07:00 in Honolulu (16:00-17:00Z).
    expect(short(slots)).toEqual([
      ...on(monday, '16:00Z Ava Quill', '16:00Z Ben Okoro', '16:30Z Ava Quill', '16:30Z Ben Okoro', '17:00Z Ava Quill', '17:30Z Ava Quill'),
    ]);
    expect(slots[0]).toEqual({ start: `${monday}T16:00:00.000Z`, end: `${monday}T16:30:00.000Z`, provider_id: PROVIDER.ava, provider_name: 'Ava Quill', duration: 30 });
    expect(slots[1]).toEqual({ start: `${monday}T16:00:00.000Z`, end: `${monday}T16:30:00.000Z`, provider_id: PROVIDER.ben, provider_name: 'Ben Okoro', duration: 30 });
  });

  it.each<[string, number | undefined, string[]]>([
    ["the questionnaire's 30 minutes, left out", undefined, ['16:00Z Ava Quill', '16:00Z Ben Okoro', '16:30Z Ava Quill', '16:30Z Ben Okoro', '17:00Z Ava Quill', '17:30Z Ava Quill']],
    ['45 minutes, each slot ending by the end of the hours', 45, ['16:00Z Ava Quill 45m', '16:00Z Ben Okoro 45m', '16:45Z Ava Quill 45m']],
    ['60 minutes', 60, ['16:00Z Ava Quill 60m', '16:00Z Ben Okoro 60m', '17:00Z Ava Quill 60m']],
    ['120 minutes: longer than Ben works', 120, ['16:00Z Ava Quill 120m']],
    ['5 minutes, the shortest', 5, [...Array.from({ length: 12 }, (_, i) => [`16:${String(i * 5).padStart(2, '0')}Z Ava Quill 5m`, `16:${String(i * 5).padStart(2, '0')}Z Ben Okoro 5m`]).flat(), ...Array.from({ length: 12 }, (_, i) => `17:${String(i * 5).padStart(2, '0')}Z Ava Quill 5m`)]],
    ['480 minutes, the longest: none', 480, []],
  ])('last %s', async (_, duration, expected) => {
    const slots = await slotsOf(t, key(), intake(duration === undefined ? {} : { duration }));
    expect(short(slots)).toEqual(expected.map((s) => `${monday}T${s}`));
  });

  it('leave out the days off and the parts of days off (two weeks of Ava, in AZ)', async () => {
    const slots = await slotsOf(t, key(), intake({ state: 'AZ', end: `${addDays(monday, 14)}T00:00:00Z` }));
    const wednesday = addDays(monday, 2);
    expect(short(slots)).toEqual([
      ...on(monday, '16:00Z Ava Quill', '16:30Z Ava Quill', '17:00Z Ava Quill', '17:30Z Ava Quill'),
      ...on(wednesday, '16:00Z Ava Quill', '16:30Z Ava Quill'),
      // Week 2: off Monday 09:30-10:00 (16:30-17:00Z), and the whole Wednesday.
      ...on(addDays(monday, 7), '16:00Z Ava Quill', '17:00Z Ava Quill', '17:30Z Ava Quill'),
    ]);
  });

  it.each<[string, string, string, string[]]>([
    ['AZ: Ava only', QUESTIONNAIRE.intake, 'AZ', ['Ava Quill']],
    ['CA: Ava and Ben', QUESTIONNAIRE.intake, 'CA', ['Ava Quill', 'Ben Okoro']],
    ['HI: Ben only', QUESTIONNAIRE.intake, 'HI', ['Ben Okoro']],
    ['NY: Cleo only', QUESTIONNAIRE.intake, 'NY', ['Cleo Marsh']],
    ['TX: no provider is licensed there', QUESTIONNAIRE.intake, 'TX', []],
    ["CA, skin: Dev only (Ava and Ben do not see the program's consults)", QUESTIONNAIRE.skin, 'CA', ['Dev Patel']],
    ['NY, skin: Cleo', QUESTIONNAIRE.skin, 'NY', ['Cleo Marsh']],
  ])('come only from providers of the program licensed in the state: %s', async (_, questionnaire, state, providers) => {
    const slots = await slotsOf(t, key(), intake({ questionnaire, state }));
    expect([...new Set(slots.map((s) => s.provider_name))].sort()).toEqual(providers);
  });

  it('lie wholly inside the window', async () => {
    const slots = await slotsOf(t, key(), intake({ state: 'AZ', start: `${monday}T16:15:00Z`, end: `${monday}T17:45:00Z` }));
    expect(short(slots)).toEqual(on(monday, '16:30Z Ava Quill', '17:00Z Ava Quill'));
  });

  it('name the questionnaire in any case', async () => {
    expect(await slotsOf(t, key(), intake({ questionnaire: QUESTIONNAIRE.intake.toUpperCase() }))).toEqual(await slotsOf(t, key(), intake()));
  });

  it('come from the care team of the caller\'s environment only', async () => {
    const sandbox = acme.sandbox_api_key;
    const notFound = { statusCode: 404, error: 'Not Found', message: 'Consult questionnaire not found. (You may not be authorized to it)' };
    // Production's questionnaire is unknown to the sandbox, and the sample's to production.
    expect((await schedule(t, sandbox, intake())).error).toEqual(notFound);
    expect((await schedule(t, key(), intake({ questionnaire: SAMPLE.intake }))).error).toEqual(notFound);
    const sample = await slotsOf(t, sandbox, intake({ questionnaire: SAMPLE.intake }));
    expect(new Set(sample.map((s) => s.provider_name))).toEqual(new Set(['Theo Pretendergast']));
  });
});

describe('a booked appointment', () => {
  beforeAll(async () => importCareTeam(t, monday));
  // Week 3: no story above books it.
  const week3 = addDays(monday, 14);

  it("takes exactly its slots, whichever customer booked them, until its consult is canceled", async () => {
    const slots = () => slotsOf(t, globex.production_api_key, intake(day(week3))).then(short);
    const all = on(week3, '16:00Z Ava Quill', '16:00Z Ben Okoro', '16:30Z Ava Quill', '16:30Z Ben Okoro', '17:00Z Ava Quill', '17:30Z Ava Quill');
    expect(await slots()).toEqual(all);

    const ava = await createConsult(t, key(), consultBody(await createPatient(t, key()), { appointment: appointmentAt({ start: `${week3}T16:30:00.000Z`, duration: 30, provider_id: PROVIDER.ava }) }));
    expect(await slots()).toEqual(all.filter((s) => s !== `${week3}T16:30Z Ava Quill`));
    // An hour of Ben's, booked by Globex, takes both his half-hour slots.
    await createConsult(t, globex.production_api_key, consultBody(await createPatient(t, globex.production_api_key), { appointment: appointmentAt({ start: `${week3}T16:00:00.000Z`, duration: 60, provider_id: PROVIDER.ben }) }));
    expect(await slots()).toEqual(on(week3, '16:00Z Ava Quill', '17:00Z Ava Quill', '17:30Z Ava Quill'));

    expect((await t.client(key()).DELETE('/consults/v0/consult/{consult_id}', { params: { path: { consult_id: ava.id } } })).data).toBe(ava.id);
    expect(await slots()).toEqual(on(week3, '16:00Z Ava Quill', '16:30Z Ava Quill', '17:00Z Ava Quill', '17:30Z Ava Quill'));
  });
});

/** The first date on or after `from` of the `nth` Sunday of `month` (1-12), in the first year where it is later than `from`. */
function nthSunday(nth: number, month: number, from = new Date()): string {
  for (let year = from.getUTCFullYear(); ; year++) {
    const first = new Date(Date.UTC(year, month - 1, 1));
    const date = addDays(first.toISOString().slice(0, 10), ((7 - first.getUTCDay()) % 7) + (nth - 1) * 7);
    if (Date.parse(`${date}T00:00:00Z`) > from.getTime() + 4 * 86_400_000) return date;
  }
}

describe('across a daylight saving change', () => {
  beforeAll(async () => importCareTeam(t, monday));

  it.each<[string, string, string, string]>([
    ['spring forward (the second Sunday of March)', nthSunday(2, 3), '14:00', '13:00'],
    ['fall back (the first Sunday of November)', nthSunday(1, 11), '13:00', '14:00'],
  ])("%s: Cleo's 09:00 in New York stays 09:00 local on both sides", async (_, sunday, utcBefore, utcAfter) => {
    const slots = await slotsOf(t, key(), { questionnaire: QUESTIONNAIRE.intake, state: 'NY', duration: 60, start: `${addDays(sunday, -3)}T00:00:00Z`, end: `${addDays(sunday, 4)}T00:00:00Z` });
    expect(short(slots)).toEqual([
      `${addDays(sunday, -3)}T${utcBefore}Z Cleo Marsh 60m`,
      `${addDays(sunday, -2)}T${utcBefore}Z Cleo Marsh 60m`,
      `${addDays(sunday, 1)}T${utcAfter}Z Cleo Marsh 60m`,
      `${addDays(sunday, 2)}T${utcAfter}Z Cleo Marsh 60m`,
      `${addDays(sunday, 3)}T${utcAfter}Z Cleo Marsh 60m`,
    ]);
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });
    expect(slots.map((s) => local.format(new Date(s.start)))).toEqual(Array(5).fill('09:00'));
  });
});

describe('a schedule request that breaks a rule', () => {
  beforeAll(async () => importCareTeam(t, monday));
  const later = (days: number, minutes = 0) => new Date(Date.parse(`${monday}T00:00:00Z`) + days * 86_400_000 + minutes * 60_000).toISOString();
  const yesterday = new Date(Date.now() - 86_400_000).toISOString();

  it.each<[string, Record<string, unknown>, { key: string; message: string }[]]>([
    ['start in the past', { start: yesterday }, [{ key: 'start', message: 'must be later than now' }]],
    ['end before start', { end: later(0, -60) }, [{ key: 'end', message: 'must be later than start' }]],
    ['end at start', { end: later(0) }, [{ key: 'end', message: 'must be later than start' }]],
    ['a window over 31 days', { end: later(31, 1) }, [{ key: 'end', message: 'must be at most 31 days after start' }]],
    ['start not a date-time', { start: 'next monday' }, [{ key: 'start', message: 'must be a valid date-time' }]],
    ['questionnaire of 23 hex characters', { questionnaire: QUESTIONNAIRE.intake.slice(1) }, [{ key: 'questionnaire', message: 'must be 24 hexadecimal digits' }]],
    ['questionnaire of 25 hex characters', { questionnaire: `${QUESTIONNAIRE.intake}0` }, [{ key: 'questionnaire', message: 'must be 24 hexadecimal digits' }]],
    ['questionnaire with a prefix', { questionnaire: `q_${QUESTIONNAIRE.intake.slice(2)}` }, [{ key: 'questionnaire', message: 'must be 24 hexadecimal digits' }]],
    ['state in lower case', { state: 'ca' }, [{ key: 'state', message: 'must be 2 upper-case letters' }]],
    ['state of three letters', { state: 'CAL' }, [{ key: 'state', message: 'must be 2 upper-case letters' }]],
    ['duration 0', { duration: 0 }, [{ key: 'duration', message: 'must be greater than or equal to 5' }]],
    ['duration negative', { duration: -30 }, [{ key: 'duration', message: 'must be greater than or equal to 5' }]],
    ['duration not a whole number', { duration: 7.5 }, [{ key: 'duration', message: 'must be an integer' }]],
    ['duration over 480 minutes', { duration: 481 }, [{ key: 'duration', message: 'must be less than or equal to 480' }]],
    ['no end, questionnaire or state', { end: undefined, questionnaire: undefined, state: undefined }, ['end', 'questionnaire', 'state'].map((k) => ({ key: k, message: 'is required' }))],
    ['start in the past and a window over 31 days', { start: yesterday, end: later(40) }, [
      { key: 'start', message: 'must be later than now' },
      { key: 'end', message: 'must be at most 31 days after start' },
    ]],
  ])('%s answers 400', async (_, over, errors) => {
    const query = Object.fromEntries(Object.entries(intake(over)).filter(([, v]) => v !== undefined));
    const { error, response } = await schedule(t, key(), query);
    expect(response.status).toBe(400);
    expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: errors });
  });

  it('a window of exactly 31 days is allowed', async () => {
    expect((await schedule(t, key(), intake({ end: later(31) }))).response.status).toBe(200);
  });

  it('an unknown questionnaire answers 404 with the real platform\'s message', async () => {
    const { error, response } = await schedule(t, key(), intake({ questionnaire: UNKNOWN_ID }));
    expect(response.status).toBe(404);
    expect(error).toEqual({ statusCode: 404, error: 'Not Found', message: 'Consult questionnaire not found. (You may not be authorized to it)' });
  });
});
