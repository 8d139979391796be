import { luhnCheckDigit } from '../check-digits.js';
import type { DocumentProblem } from '../db/environment-documents.js';
import { compactDate, isCalendarDate } from '../dates.js';
import type { CareTeam, Program, Provider, Questionnaire, ScheduleException, WorkingPeriod } from './care-team.js';
import { isTimeZone, minutesOf } from './local-time.js';

/**
 * What makes a care team usable: the shape of `CareTeam`, and the rules the schedule
 * depends on (ids that other records name, time zones `Intl` knows, working periods that
 * can be cut into slots). The limits keep one schedule request cheap.
 */
export const CARE_TEAM_LIMITS = {
  programs: 100,
  questionnaires: 500,
  providers: 500,
  /** Per provider. */
  licensedStates: 60,
  programsPerProvider: 100,
  workingPeriods: 70,
  exceptions: 1000,
  name: 255,
  /** A provider's first or last name (the schedule's `provider_name`, both and a space, is at most 201). */
  personName: 100,
  title: 20,
  minDurationMinutes: 5,
  maxDurationMinutes: 480,
} as const;

export const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
export const STATE = /^[A-Z]{2}$/;
/** `HH:MM` from `00:00` to `23:59`, or `24:00` (the end of the day, as an end only). */
const TIME = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NPI = /^\d{10}$/;
const WEEKDAYS = ['', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** One thing wrong with a care team: where (`providers[2].working_hours[0].end`) and what. */
export type CareTeamProblem = DocumentProblem;

export type CareTeamCheck = { careTeam: CareTeam; problems?: undefined } | { careTeam?: undefined; problems: CareTeamProblem[] };

/**
 * The check digit of an NPI's first 9 digits: Luhn's, over the digits prefixed with 80840
 * (the NPI's issuer prefix, as the NPI standard computes it).
 */
export function npiCheckDigit(first9: string): number {
  return luhnCheckDigit(`80840${first9}`);
}

type Fields = Record<string, unknown>;

/** Collects problems while reading a value, and reads its fields by kind. */
class Reading {
  readonly problems: CareTeamProblem[] = [];

  fail(where: string, message: string): void {
    this.problems.push({ where, message });
  }

  /** The value as an object of these fields (others are refused), or undefined when it is none. */
  object(value: unknown, where: string, fields: readonly string[]): Fields | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(where, 'must be an object');
      return undefined;
    }
    for (const key of Object.keys(value)) if (!fields.includes(key)) this.fail(`${where}.${key}`, 'is not allowed');
    return value as Fields;
  }

  array(fields: Fields, key: string, where: string, min: number, max: number): unknown[] {
    const value = fields[key];
    const place = where ? `${where}.${key}` : key;
    if (!Array.isArray(value)) {
      this.fail(place, value === undefined ? 'is required' : 'must be an array');
      return [];
    }
    if (value.length < min) this.fail(place, `must list at least ${min}`);
    if (value.length > max) this.fail(place, `must list at most ${max} (it lists ${value.length})`);
    return value.slice(0, max);
  }

  /** A required, non-blank string of at most `max` characters. */
  text(fields: Fields, key: string, where: string, max: number): string {
    const value = fields[key];
    if (typeof value !== 'string') {
      this.fail(`${where}.${key}`, value === undefined || value === null ? 'is required' : 'must be a string');
      return '';
    }
    if (value.trim() === '') this.fail(`${where}.${key}`, 'must not be empty');
    else if (value.length > max) this.fail(`${where}.${key}`, `must be at most ${max} characters`);
    return value;
  }

  /** A string or null (left out: null). */
  optionalText(fields: Fields, key: string, where: string, max: number): string | null {
    if (fields[key] === undefined || fields[key] === null) return null;
    return this.text(fields, key, where, max);
  }

  /** A 24-hex-character id, in lower case (the form every answer shows). */
  id(value: unknown, where: string): string {
    if (typeof value !== 'string' || !OBJECT_ID.test(value)) {
      this.fail(where, value === undefined ? 'is required' : 'must be 24 hexadecimal characters');
      return typeof value === 'string' ? value.toLowerCase() : '';
    }
    return value.toLowerCase();
  }

  integer(fields: Fields, key: string, where: string, min: number, max: number): number {
    const value = fields[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(`${where}.${key}`, value === undefined ? 'is required' : `must be a whole number from ${min} to ${max}`);
      return Number.NaN;
    }
    return value;
  }

  /** `HH:MM`; `24:00` only where `endOfDay` allows it. */
  time(fields: Fields, key: string, where: string, endOfDay: boolean): string {
    const value = fields[key];
    if (typeof value !== 'string' || !TIME.test(value) || (value === '24:00' && !endOfDay)) {
      const range = endOfDay ? '00:00 to 24:00' : '00:00 to 23:59';
      this.fail(`${where}.${key}`, value === undefined ? 'is required' : `must be a time of day as HH:MM (${range})`);
      return '';
    }
    return value;
  }
}

const CARE_TEAM_FIELDS = ['programs', 'questionnaires', 'providers'];
const PROGRAM_FIELDS = ['id', 'name'];
const QUESTIONNAIRE_FIELDS = ['id', 'program_id', 'name', 'default_duration_minutes'];
const PROVIDER_FIELDS = ['id', 'first_name', 'last_name', 'title', 'npi', 'licensed_states', 'program_ids', 'time_zone', 'working_hours', 'exceptions'];
const PERIOD_FIELDS = ['weekday', 'start', 'end'];
const EXCEPTION_FIELDS = ['date', 'start', 'end'];

/**
 * Checks a value (a parsed JSON document) as a care team: answers the care team, rebuilt
 * from the fields it knows (ids in lower case, a left-out title null), or every problem
 * found, each naming where it is.
 */
export function checkCareTeam(value: unknown): CareTeamCheck {
  const reading = new Reading();
  const fields = reading.object(value, 'care team', CARE_TEAM_FIELDS);
  if (!fields) return { problems: reading.problems };
  const programs = reading.array(fields, 'programs', '', 0, CARE_TEAM_LIMITS.programs).map((p, i) => readProgram(reading, p, `programs[${i}]`));
  const questionnaires = reading
    .array(fields, 'questionnaires', '', 0, CARE_TEAM_LIMITS.questionnaires)
    .map((q, i) => readQuestionnaire(reading, q, `questionnaires[${i}]`));
  const providers = reading.array(fields, 'providers', '', 0, CARE_TEAM_LIMITS.providers).map((p, i) => readProvider(reading, p, `providers[${i}]`));
  checkIds(reading, programs, questionnaires, providers);
  checkReferences(reading, programs, questionnaires, providers);
  return reading.problems.length ? { problems: reading.problems } : { careTeam: { programs, questionnaires, providers } };
}

function readProgram(reading: Reading, value: unknown, where: string): Program {
  const fields = reading.object(value, where, PROGRAM_FIELDS);
  // Not an object: said once, and it takes part in no other rule.
  if (!fields) return { id: '', name: '' };
  return { id: reading.id(fields.id, `${where}.id`), name: reading.text(fields, 'name', where, CARE_TEAM_LIMITS.name) };
}

function readQuestionnaire(reading: Reading, value: unknown, where: string): Questionnaire {
  const fields = reading.object(value, where, QUESTIONNAIRE_FIELDS);
  if (!fields) return { id: '', program_id: '', name: '', default_duration_minutes: 0 };
  return {
    id: reading.id(fields.id, `${where}.id`),
    program_id: reading.id(fields.program_id, `${where}.program_id`),
    name: reading.text(fields, 'name', where, CARE_TEAM_LIMITS.name),
    default_duration_minutes: reading.integer(fields, 'default_duration_minutes', where, CARE_TEAM_LIMITS.minDurationMinutes, CARE_TEAM_LIMITS.maxDurationMinutes),
  };
}

function readProvider(reading: Reading, value: unknown, where: string): Provider {
  const fields = reading.object(value, where, PROVIDER_FIELDS);
  if (!fields) return { id: '', first_name: '', last_name: '', title: null, npi: '', licensed_states: [], program_ids: [], time_zone: '', working_hours: [], exceptions: [] };
  const states = reading.array(fields, 'licensed_states', where, 1, CARE_TEAM_LIMITS.licensedStates).map((state, i) => {
    if (typeof state !== 'string' || !STATE.test(state)) reading.fail(`${where}.licensed_states[${i}]`, 'must be a state as two upper-case letters (CA)');
    return String(state);
  });
  const programIds = reading.array(fields, 'program_ids', where, 1, CARE_TEAM_LIMITS.programsPerProvider).map((id, i) => reading.id(id, `${where}.program_ids[${i}]`));
  const provider: Provider = {
    id: reading.id(fields.id, `${where}.id`),
    first_name: reading.text(fields, 'first_name', where, CARE_TEAM_LIMITS.personName),
    last_name: reading.text(fields, 'last_name', where, CARE_TEAM_LIMITS.personName),
    title: reading.optionalText(fields, 'title', where, CARE_TEAM_LIMITS.title),
    npi: readNpi(reading, fields.npi, `${where}.npi`),
    licensed_states: states,
    program_ids: programIds,
    time_zone: readTimeZone(reading, fields.time_zone, `${where}.time_zone`),
    working_hours: reading.array(fields, 'working_hours', where, 0, CARE_TEAM_LIMITS.workingPeriods).map((p, i) => readPeriod(reading, p, `${where}.working_hours[${i}]`)),
    exceptions: reading.array(fields, 'exceptions', where, 0, CARE_TEAM_LIMITS.exceptions).map((e, i) => readException(reading, e, `${where}.exceptions[${i}]`)),
  };
  for (const [i, first] of repeats(states)) reading.fail(`${where}.licensed_states[${i}]`, `repeats licensed_states[${first}]`);
  for (const [i, first] of repeats(programIds)) reading.fail(`${where}.program_ids[${i}]`, `repeats program_ids[${first}]`);
  checkOverlaps(reading, provider.working_hours, where);
  return provider;
}

function readNpi(reading: Reading, value: unknown, where: string): string {
  if (typeof value !== 'string' || !NPI.test(value)) {
    reading.fail(where, value === undefined ? 'is required' : 'must be an NPI: 10 digits, as a string');
    return typeof value === 'string' ? value : '';
  }
  const check = npiCheckDigit(value.slice(0, 9));
  if (check !== Number(value[9])) reading.fail(where, `has a wrong check digit for an NPI (${value.slice(0, 9)}${check} would be valid)`);
  return value;
}

function readTimeZone(reading: Reading, value: unknown, where: string): string {
  if (typeof value !== 'string' || !value.trim()) {
    reading.fail(where, value === undefined ? 'is required' : 'must be an IANA time zone name (America/Chicago)');
    return '';
  }
  if (!isTimeZone(value)) reading.fail(where, `is not a time zone this system knows (an IANA name such as America/Chicago)`);
  return value;
}

function readPeriod(reading: Reading, value: unknown, where: string): WorkingPeriod {
  const fields = reading.object(value, where, PERIOD_FIELDS);
  if (!fields) return { weekday: Number.NaN, start: '', end: '' };
  const period = {
    weekday: reading.integer(fields, 'weekday', where, 1, 7),
    start: reading.time(fields, 'start', where, false),
    end: reading.time(fields, 'end', where, true),
  };
  if (period.start && period.end && period.start >= period.end) reading.fail(`${where}.end`, `must be later than start (${period.start})`);
  return period;
}

function readException(reading: Reading, value: unknown, where: string): ScheduleException {
  const fields = reading.object(value, where, EXCEPTION_FIELDS);
  if (!fields) return { date: '' };
  const date = fields.date;
  if (typeof date !== 'string' || !DATE.test(date) || !isCalendarDate(compactDate(date))) {
    reading.fail(`${where}.date`, date === undefined ? 'is required' : 'must be a calendar date as YYYY-MM-DD');
  }
  if (fields.start == null && fields.end == null) return { date: String(date) };
  if (fields.start == null || fields.end == null) {
    reading.fail(where, 'must give both start and end (part of the day off), or neither (the whole day off)');
    return { date: String(date) };
  }
  const start = reading.time(fields, 'start', where, false);
  const end = reading.time(fields, 'end', where, true);
  if (start && end && start >= end) reading.fail(`${where}.end`, `must be later than start (${start})`);
  return { date: String(date), start, end };
}

/** The periods of one weekday must not overlap (one may end when the next starts). */
function checkOverlaps(reading: Reading, periods: WorkingPeriod[], where: string): void {
  const valid = periods.map((period, i) => ({ period, i })).filter(({ period: p }) => Number.isInteger(p.weekday) && p.start && p.end && p.start < p.end);
  const sorted = valid.sort((a, b) => a.period.weekday - b.period.weekday || minutesOf(a.period.start) - minutesOf(b.period.start));
  for (let k = 1; k < sorted.length; k++) {
    const previous = sorted[k - 1]!;
    const { period, i } = sorted[k]!;
    if (period.weekday === previous.period.weekday && period.start < previous.period.end) {
      const day = WEEKDAYS[period.weekday] ?? '';
      reading.fail(`${where}.working_hours[${i}]`, `overlaps working_hours[${previous.i}] (${day} ${previous.period.start}-${previous.period.end})`);
    }
  }
}

/** Ids are unique across programs, questionnaires and providers; NPIs across providers. */
function checkIds(reading: Reading, programs: Program[], questionnaires: Questionnaire[], providers: Provider[]): void {
  const records = [
    ...programs.map((p, i) => ({ id: p.id, where: `programs[${i}]` })),
    ...questionnaires.map((q, i) => ({ id: q.id, where: `questionnaires[${i}]` })),
    ...providers.map((p, i) => ({ id: p.id, where: `providers[${i}]` })),
  ];
  const seen = new Map<string, string>();
  for (const { id, where } of records) {
    if (!OBJECT_ID.test(id)) continue;
    const first = seen.get(id);
    if (first) reading.fail(`${where}.id`, `repeats the id of ${first}`);
    else seen.set(id, where);
  }
  for (const [i, first] of repeats(providers.map((p) => p.npi))) reading.fail(`providers[${i}].npi`, `repeats the NPI of providers[${first}]`);
}

/** Every program a questionnaire or a provider names is a program of the care team. */
function checkReferences(reading: Reading, programs: Program[], questionnaires: Questionnaire[], providers: Provider[]): void {
  const known = new Set(programs.map((p) => p.id));
  questionnaires.forEach((q, i) => {
    if (OBJECT_ID.test(q.program_id) && !known.has(q.program_id)) reading.fail(`questionnaires[${i}].program_id`, 'names no program of the care team');
  });
  providers.forEach((provider, p) => {
    provider.program_ids.forEach((id, i) => {
      if (OBJECT_ID.test(id) && !known.has(id)) reading.fail(`providers[${p}].program_ids[${i}]`, 'names no program of the care team');
    });
  });
}

/** The items (not blank) that repeat an earlier one: [index, index of the first]. */
function repeats(items: readonly string[]): [number, number][] {
  const first = new Map<string, number>();
  const found: [number, number][] = [];
  items.forEach((item, i) => {
    if (!item.trim()) return;
    const earlier = first.get(item);
    if (earlier === undefined) first.set(item, i);
    else found.push([i, earlier]);
  });
  return found;
}
