import { readFileSync } from 'node:fs';
import { openApiDocumentPath, type components } from '@pharmacy/contract';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { parse } from 'yaml';
import type { Environment } from '../../src/auth/principal.js';
import type { CareTeam, Provider } from '../../src/care-team/care-team.js';
import { npiCheckDigit } from '../../src/care-team/care-team-rules.js';
import type { TestApp } from './test-app.js';

/**
 * Consults as the stories make and read them: a small care team of the tests' own (imported
 * into production, where the operator's import is the only one), times in its providers'
 * zones relative to today, bodies, and the events a consult records.
 */
type Schemas = components['schemas'];
export type Slot = Schemas['ScheduleSlot'];
export type Consult = Schemas['Consult'];
export type ConsultDetail = Schemas['ConsultDetail'];
export type ConsultCreate = Schemas['ConsultCreate'];

export const PROGRAM = { weight: 'c0ffee000000000000000001', skin: 'c0ffee000000000000000002' } as const;
export const QUESTIONNAIRE = { intake: 'c0ffee000000000000000011', skin: 'c0ffee000000000000000012' } as const;
export const PROVIDER = {
  ava: 'c0ffee0000000000000000a1',
  ben: 'c0ffee0000000000000000b2',
  cleo: 'c0ffee0000000000000000c3',
  dev: 'c0ffee0000000000000000d4',
} as const;
/** A 24-hex id that is nothing of any care team. */
export const UNKNOWN_ID = 'deadbeefdeadbeefdeadbeef';
/** The sandbox sample's weight management intake (30 minutes) and its program. */
export const SAMPLE = { intake: '6a1f35f64d3d318443a763de', weight: '6a1fe599f2aa13517b7e90fa' } as const;

/** A valid NPI from 9 digits (its Luhn check digit appended). */
export const npi = (first9: string) => `${first9}${npiCheckDigit(first9)}`;

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` plus `days`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The first Monday at least `days` days after today (UTC): far enough that every slot of its week is later than now. */
export function mondayAfter(days = 2): string {
  let date = addDays(new Date().toISOString().slice(0, 10), days);
  while (new Date(`${date}T00:00:00Z`).getUTCDay() !== 1) date = addDays(date, 1);
  return date;
}

/** Minutes the zone's clock is ahead of UTC at the instant. */
function offsetMinutes(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }).formatToParts(instant);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return (Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute')) - Math.floor(instant / 60_000) * 60_000) / 60_000;
}

/** The UTC instant (ISO 8601 with milliseconds) at which the zone's clock reads `time` on `date` (a time that exists). */
export function at(date: string, time: string, timeZone: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [h, min] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, h, min);
  const first = wall - offsetMinutes(wall, timeZone) * 60_000;
  return new Date(wall - offsetMinutes(first, timeZone) * 60_000).toISOString();
}

export const PHOENIX = 'America/Phoenix';
export const HONOLULU = 'Pacific/Honolulu';
export const NEW_YORK = 'America/New_York';

const provider = (fields: Partial<Provider> & Pick<Provider, 'id' | 'first_name' | 'last_name' | 'npi' | 'time_zone'>): Provider => ({
  title: null,
  licensed_states: [],
  program_ids: [PROGRAM.weight],
  working_hours: [],
  exceptions: [],
  ...fields,
});

/**
 * The tests' care team, its days off relative to `monday` (a week-1 Monday; week 2 starts
 * seven days later):
 * - Ava Quill, MD (Phoenix, no daylight saving; AZ, CA; weight): Mondays 09:00-11:00 and
 *   Wednesdays 09:00-10:00; off Monday of week 2 from 09:30 to 10:00 and the whole
 *   Wednesday of week 2.
 * - Ben Okoro, NP (Honolulu; CA, HI; weight): Mondays 06:00-07:00, the same instants as Ava's first hour.
 * - Cleo Marsh, DO (New York; NY; weight and skin): weekdays 09:00-10:00.
 * - Dev Patel, NP (Phoenix; CA; skin only): Mondays 09:00-10:00.
 */
export function careTeam(monday: string): CareTeam {
  return {
    programs: [
      { id: PROGRAM.weight, name: 'Weight care' },
      { id: PROGRAM.skin, name: 'Skin care' },
    ],
    questionnaires: [
      { id: QUESTIONNAIRE.intake, program_id: PROGRAM.weight, name: 'Weight care intake', default_duration_minutes: 30 },
      { id: QUESTIONNAIRE.skin, program_id: PROGRAM.skin, name: 'Acne review', default_duration_minutes: 20 },
    ],
    providers: [
      provider({
        id: PROVIDER.ava,
        first_name: 'Ava',
        last_name: 'Quill',
        title: 'MD',
        npi: npi('100000001'),
        licensed_states: ['AZ', 'CA'],
        time_zone: PHOENIX,
        working_hours: [
          { weekday: 1, start: '09:00', end: '11:00' },
          { weekday: 3, start: '09:00', end: '10:00' },
        ],
        exceptions: [{ date: addDays(monday, 7), start: '09:30', end: '10:00' }, { date: addDays(monday, 9) }],
      }),
      provider({
        id: PROVIDER.ben,
        first_name: 'Ben',
        last_name: 'Okoro',
        title: 'NP',
        npi: npi('100000002'),
        licensed_states: ['CA', 'HI'],
        time_zone: HONOLULU,
        working_hours: [{ weekday: 1, start: '06:00', end: '07:00' }],
      }),
      provider({
        id: PROVIDER.cleo,
        first_name: 'Cleo',
        last_name: 'Marsh',
        title: 'DO',
        npi: npi('100000003'),
        licensed_states: ['NY'],
        program_ids: [PROGRAM.weight, PROGRAM.skin],
        time_zone: NEW_YORK,
        working_hours: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: '09:00', end: '10:00' })),
      }),
      provider({
        id: PROVIDER.dev,
        first_name: 'Dev',
        last_name: 'Patel',
        title: 'NP',
        npi: npi('100000004'),
        licensed_states: ['CA'],
        program_ids: [PROGRAM.skin],
        time_zone: PHOENIX,
        working_hours: [{ weekday: 1, start: '09:00', end: '10:00' }],
      }),
    ],
  };
}

/** Imports the tests' care team into an environment (production by default), as `pnpm admin care-team import` does. */
export function importCareTeam(t: TestApp, monday: string, environment: Environment = 'production') {
  return t.app.services.careTeams.import(environment, JSON.stringify(careTeam(monday)), 'team.json');
}

/** Where a consult's prescription ships: the patient is in `state`. */
export const shippingAddress = (state = 'CA') => ({ name: 'Jane Doe', street1: '1 Market St', city: 'San Francisco', state, zip: '94107', email: 'jane@example.com' });

/** A patient given whole, as the real platform's `Patient` (dob as YYYY-MM-DD). */
export const inlinePatient = (first_name: string) => ({
  first_name,
  last_name: 'Doe',
  gender: 'female' as const,
  dob: '1980-01-31',
  home_zip: '94107',
  preferred_contact: 'email' as const,
  contacts: { email: 'jane@example.com', phone: '4155550100' },
});

/** A patient named by token (the real platform's `Patient` requires its other fields too). */
export const byToken = (patient_token: string) => ({ patient_token, last_name: 'Doe', gender: 'unknown' as const, dob: '1980-01-31', home_zip: '94107', preferred_contact: 'email' as const });

/** A create body for the patient; `over` changes or adds parts. */
export function consultBody(patient: string | ReturnType<typeof inlinePatient>, over: Record<string, unknown> = {}): ConsultCreate {
  return {
    patient: typeof patient === 'string' ? byToken(patient) : patient,
    shipping_address: shippingAddress(),
    questionaire: QUESTIONNAIRE.intake,
    ...over,
  } as ConsultCreate;
}

/** `GET /v0/schedule` (every answer checked against the spec by the typed client). */
export function schedule(t: TestApp, apiKey: string, query: Record<string, unknown>) {
  return t.client(apiKey).GET('/v0/schedule', { params: { query: query as never } });
}

/** The open slots; expects `200`. */
export async function slotsOf(t: TestApp, apiKey: string, query: Record<string, unknown>): Promise<Slot[]> {
  const { data, error, response } = await schedule(t, apiKey, query);
  expect(response.status, JSON.stringify(error)).toBe(200);
  return data!.availabilities;
}

/** `POST /consults/v0/consult`; expects `200` and answers the new consult's id and patient token. */
export async function createConsult(t: TestApp, apiKey: string, body: ConsultCreate): Promise<{ id: string; patient: string }> {
  const { data, error, response } = await t.client(apiKey).POST('/consults/v0/consult', { body });
  expect(response.status, JSON.stringify(error)).toBe(200);
  expect(data!.patient).toEqual({ patient_token: data!.patient_token });
  return { id: data!.consult, patient: data!.patient_token };
}

/** `GET /consults/v0/consult/{consult_id}`; expects `200`. */
export async function getConsult(t: TestApp, apiKey: string, id: string): Promise<ConsultDetail> {
  const { data, error, response } = await t.client(apiKey).GET('/consults/v0/consult/{consult_id}', { params: { path: { consult_id: id } } });
  expect(response.status, JSON.stringify(error)).toBe(200);
  return data!;
}

/** A slot as booked by a create body's `appointment`. */
export const appointmentAt = (slot: Pick<Slot, 'start' | 'duration'> & { provider_id?: string }) => ({
  appt_date: slot.start,
  duration: slot.duration * 60,
  ...(slot.provider_id ? { provider_id: slot.provider_id } : {}),
});

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** Problems of an envelope against `#/components/schemas/<name>` of the bundle; [] when valid. */
export function schemaProblems(name: 'ConsultEvent' | 'ConsultTaskEvent', value: unknown): string[] {
  if (!ajv) {
    const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule.default;
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema({ ...(parse(readFileSync(openApiDocumentPath, 'utf8')) as object), $id: 'bundle.json' });
  }
  let validate = validators.get(name);
  if (!validate) validators.set(name, (validate = ajv.getSchema(`bundle.json#/components/schemas/${name}`)!));
  return validate(value) ? [] : [JSON.stringify(validate.errors?.slice(0, 5))];
}

export interface ConsultEnvelope {
  callback_type: 'CONSULT' | 'CONSULT_TASK';
  details: { consult_id: string; status: string; message: string; patient_token?: string; task_id?: string; task_type?: string };
  timestamp: number;
}

/**
 * The consult's events in the customer's feed (`GET /v1/webhook_events`, every page), in
 * recording order: each checked against the spec's `WebhookEvent` by the typed client, and
 * against `ConsultEvent` or `ConsultTaskEvent` here.
 */
export async function consultEvents(t: TestApp, apiKey: string, consultId: string): Promise<ConsultEnvelope[]> {
  const found: ConsultEnvelope[] = [];
  let next: string | undefined;
  do {
    const { data, response } = await t.client(apiKey).GET('/v1/webhook_events', { params: { query: { limit: 100, ...(next ? { next } : {}) } } });
    expect(response.status).toBe(200);
    for (const { payload } of data!.results) {
      const event = payload as unknown as ConsultEnvelope;
      if (!event.callback_type.startsWith('CONSULT') || event.details.consult_id !== consultId) continue;
      expect(schemaProblems(event.callback_type === 'CONSULT' ? 'ConsultEvent' : 'ConsultTaskEvent', event)).toEqual([]);
      found.push(event);
    }
    next = data!.next_page_token ?? undefined;
  } while (next);
  return found;
}

/** Each event as `CONSULT:<status>` or `CONSULT_TASK:<status>`. */
export const eventSummary = (events: ConsultEnvelope[]) => events.map((e) => `${e.callback_type}:${e.details.status}`);
