// The schedule's open slots (seed 4.7): cut from each provider's working hours in the
// provider's own time zone, minus days off and appointments, inside the window; and the
// wall-clock helpers they stand on, across daylight saving time changes.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openSlots, type BusyInterval, type Slot, type SlotRequest } from '../src/care-team/availability.js';
import type { CareTeam, Provider, ScheduleException, WorkingPeriod } from '../src/care-team/care-team.js';
import { CareTeamIndex } from '../src/care-team/care-team-index.js';
import { instantText, parseInstant } from '../src/care-team/instant-text.js';
import { DAY_MS, instantToZoned, localAt, localDays, localOf, offsetAt, resolveLocal, zonedToInstant } from '../src/care-team/local-time.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const sample = (): CareTeam => JSON.parse(readFileSync(join(apiRoot, 'reference-data/care-team.json'), 'utf8'));

const AVERY = 'a0a0a0a0a0a0a0a0a0a0a001';
const ROWAN = 'b0b0b0b0b0b0b0b0b0b0b002';
const HOURS = 3_600_000;

/** 2030-01-14 is a Monday (weekday 1), 2030-03-10 and 2030-11-03 Sundays (7). */
const MONDAY = '2030-01-14';
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7];

function provider(fields: Partial<Provider> & Pick<Provider, 'working_hours'>): Provider {
  return {
    id: AVERY,
    first_name: 'Avery',
    last_name: 'Quill',
    title: 'MD',
    npi: '1234567893',
    licensed_states: ['NY'],
    program_ids: ['c0c0c0c0c0c0c0c0c0c0c0c0'],
    time_zone: 'UTC',
    exceptions: [],
    ...fields,
  };
}

const rowan = (fields: Partial<Provider> & Pick<Provider, 'working_hours'>) => provider({ id: ROWAN, first_name: 'Rowan', last_name: 'Ellery', ...fields });

/** Periods on each of the weekdays. */
function hours(weekdays: number[], ...periods: [string, string][]): WorkingPeriod[] {
  return weekdays.flatMap((weekday) => periods.map(([start, end]) => ({ weekday, start, end })));
}

const busy = (start: string, end: string, provider_id = AVERY): BusyInterval => ({ provider_id, start: `${MONDAY}T${start}:00.000Z`, end: `${MONDAY}T${end}:00.000Z` });

/** A slot in short: `09:00-09:45 Avery Quill` (UTC). */
const short = (slots: Slot[]) => slots.map((s) => `${s.start.slice(11, 16)}-${s.end.slice(11, 16)} ${s.provider_name}`);
/** A slot as its UTC instants: `2030-03-10T06:00Z/06:30Z`. */
const utc = (slots: Slot[]) => slots.map((s) => `${s.start.slice(0, 16)}Z/${s.end.slice(11, 16)}Z`);

interface Case {
  providers: Provider[];
  duration: number;
  busy?: BusyInterval[];
  start?: string;
  end?: string;
  now?: string;
  limit?: number;
}

/** Slots of Monday 2030-01-14 (UTC) unless the case names its window. */
function slotsOf(c: Case): Slot[] {
  const request: SlotRequest = {
    providers: c.providers,
    start: c.start ?? `${MONDAY}T00:00:00.000Z`,
    end: c.end ?? '2030-01-15T00:00:00.000Z',
    durationMinutes: c.duration,
    busy: c.busy ?? [],
    now: c.now,
    limit: c.limit,
  };
  return openSlots(request);
}

const monday = (...periods: [string, string][]) => [provider({ working_hours: hours([1], ...periods) })];
const mondayOff = (exceptions: ScheduleException[]) => [provider({ working_hours: hours([1], ['09:00', '12:00']), exceptions })];
const A = (...times: string[]) => times.map((t) => `${t} Avery Quill`);

describe('open slots', () => {
  it.each<[string, Case, string[]]>([
    // Working hours and durations.
    ['a 09:00-12:00 period by 45 minutes steps from its start', { providers: monday(['09:00', '12:00']), duration: 45 }, A('09:00-09:45', '09:45-10:30', '10:30-11:15', '11:15-12:00')],
    ['a duration that divides the period fills it', { providers: monday(['09:00', '11:00']), duration: 30 }, A('09:00-09:30', '09:30-10:00', '10:00-10:30', '10:30-11:00')],
    ['a duration that does not divide it leaves the rest of the period', { providers: monday(['09:00', '10:00']), duration: 25 }, A('09:00-09:25', '09:25-09:50')],
    ['a duration longer than the period gives none', { providers: monday(['09:00', '09:30']), duration: 45 }, []],
    ['a split day has slots in each period and none between', { providers: monday(['09:00', '10:00'], ['13:00', '14:00']), duration: 30 }, A('09:00-09:30', '09:30-10:00', '13:00-13:30', '13:30-14:00')],
    ['periods listed out of order come in time order', { providers: monday(['13:00', '14:00'], ['09:00', '10:00']), duration: 60 }, A('09:00-10:00', '13:00-14:00')],
    ['a period that ends at 24:00 runs to midnight', { providers: monday(['22:00', '24:00']), duration: 60 }, A('22:00-23:00', '23:00-00:00')],
    ['a weekday not worked gives none', { providers: [provider({ working_hours: hours([2, 3], ['09:00', '17:00']) })], duration: 30 }, []],
    // Days off.
    ['a whole day off gives none', { providers: mondayOff([{ date: MONDAY }]), duration: 60 }, []],
    ['part of a day off removes the slots inside it', { providers: mondayOff([{ date: MONDAY, start: '09:30', end: '10:30' }]), duration: 30 }, A('09:00-09:30', '10:30-11:00', '11:00-11:30', '11:30-12:00')],
    ['part of a day off removes the slots it cuts', { providers: mondayOff([{ date: MONDAY, start: '09:45', end: '10:15' }]), duration: 30 }, A('09:00-09:30', '10:30-11:00', '11:00-11:30', '11:30-12:00')],
    ['two parts of a day off', { providers: mondayOff([{ date: MONDAY, start: '09:00', end: '10:00' }, { date: MONDAY, start: '11:00', end: '12:00' }]), duration: 60 }, A('10:00-11:00')],
    ['a day off on another date changes nothing', { providers: mondayOff([{ date: '2030-01-21' }, { date: '2030-01-13' }]), duration: 60 }, A('09:00-10:00', '10:00-11:00', '11:00-12:00')],
    // Appointments.
    ['an appointment that is a slot takes it', { providers: monday(['09:00', '11:00']), duration: 30, busy: [busy('09:30', '10:00')] }, A('09:00-09:30', '10:00-10:30', '10:30-11:00')],
    ['an appointment inside a slot takes it', { providers: monday(['09:00', '11:00']), duration: 30, busy: [busy('09:40', '09:50')] }, A('09:00-09:30', '10:00-10:30', '10:30-11:00')],
    ['an appointment across two slots takes both', { providers: monday(['09:00', '11:00']), duration: 30, busy: [busy('09:15', '09:45')] }, A('10:00-10:30', '10:30-11:00')],
    ['appointments that end when a slot starts or start when it ends take nothing', { providers: monday(['09:00', '10:00']), duration: 30, busy: [busy('08:30', '09:00'), busy('10:00', '10:30')] }, A('09:00-09:30', '09:30-10:00')],
    ['overlapping appointments, in any order, take every slot they touch', { providers: monday(['09:00', '12:00']), duration: 30, busy: [busy('09:20', '10:10'), busy('09:00', '09:40')] }, A('10:30-11:00', '11:00-11:30', '11:30-12:00')],
    ['an appointment from the day before takes the morning', { providers: monday(['09:00', '12:00']), duration: 60, busy: [{ provider_id: AVERY, start: '2030-01-13T20:00:00.000Z', end: `${MONDAY}T10:00:00.000Z` }] }, A('10:00-11:00', '11:00-12:00')],
    ["another provider's appointment changes nothing", { providers: monday(['09:00', '10:00']), duration: 30, busy: [busy('09:00', '10:00', ROWAN)] }, A('09:00-09:30', '09:30-10:00')],
    ['an appointment that takes no time changes nothing', { providers: monday(['09:00', '10:00']), duration: 30, busy: [busy('09:15', '09:15')] }, A('09:00-09:30', '09:30-10:00')],
    // The window.
    ['a slot crossing the start of the window is left out', { providers: monday(['09:00', '11:00']), duration: 30, start: `${MONDAY}T09:10:00.000Z` }, A('09:30-10:00', '10:00-10:30', '10:30-11:00')],
    ['a slot starting with the window is in', { providers: monday(['09:00', '11:00']), duration: 30, start: `${MONDAY}T09:30:00.000Z` }, A('09:30-10:00', '10:00-10:30', '10:30-11:00')],
    ['a slot crossing the end of the window is left out', { providers: monday(['09:00', '11:00']), duration: 30, end: `${MONDAY}T10:40:00.000Z` }, A('09:00-09:30', '09:30-10:00', '10:00-10:30')],
    ['a slot ending with the window is in', { providers: monday(['09:00', '11:00']), duration: 30, end: `${MONDAY}T10:30:00.000Z` }, A('09:00-09:30', '09:30-10:00', '10:00-10:30')],
    ['a window inside one slot gives none', { providers: monday(['09:00', '11:00']), duration: 60, start: `${MONDAY}T09:10:00.000Z`, end: `${MONDAY}T10:50:00.000Z` }, []],
    ['a window that ends before it starts gives none', { providers: monday(['09:00', '11:00']), duration: 30, start: `${MONDAY}T11:00:00.000Z`, end: `${MONDAY}T09:00:00.000Z` }, []],
    ['slots starting before now are left out', { providers: monday(['09:00', '11:00']), duration: 30, now: `${MONDAY}T09:05:00.000Z` }, A('09:30-10:00', '10:00-10:30', '10:30-11:00')],
    ['a limit answers the earliest', { providers: monday(['09:00', '11:00']), duration: 30, limit: 2 }, A('09:00-09:30', '09:30-10:00')],
    // Several providers.
    [
      'several providers: earliest first, then by name',
      { providers: [rowan({ working_hours: hours([1], ['09:00', '10:00']) }), provider({ working_hours: hours([1], ['09:30', '10:30']) })], duration: 30 },
      ['09:00-09:30 Rowan Ellery', '09:30-10:00 Avery Quill', '09:30-10:00 Rowan Ellery', '10:00-10:30 Avery Quill'],
    ],
    [
      "each provider's appointments are their own",
      { providers: [rowan({ working_hours: hours([1], ['09:00', '10:00']) }), provider({ working_hours: hours([1], ['09:00', '10:00']) })], duration: 30, busy: [busy('09:00', '09:30', ROWAN), busy('09:30', '10:00')] },
      ['09:00-09:30 Avery Quill', '09:30-10:00 Rowan Ellery'],
    ],
    [
      "each provider's time zone: 09:00 in New York, Chicago and Los Angeles",
      {
        providers: [
          rowan({ time_zone: 'America/Los_Angeles', working_hours: hours([1], ['09:00', '10:00']) }),
          provider({ id: 'c0c0c0c0c0c0c0c0c0c0c0c1', first_name: 'Sasha', last_name: 'Brook', time_zone: 'America/Chicago', working_hours: hours([1], ['09:00', '10:00']) }),
          provider({ time_zone: 'America/New_York', working_hours: hours([1], ['09:00', '10:00']) }),
        ],
        duration: 60,
      },
      ['14:00-15:00 Avery Quill', '15:00-16:00 Sasha Brook', '17:00-18:00 Rowan Ellery'],
    ],
  ])('%s', (_, c, expected) => {
    expect(short(slotsOf(c))).toEqual(expected);
  });

  it('answers slots in the spec’s shape: UTC instants with milliseconds, the provider, the duration', () => {
    const [slot] = slotsOf({ providers: [provider({ time_zone: 'America/New_York', working_hours: hours([1], ['12:00', '13:00']) })], duration: 20 });
    expect(slot).toEqual({ start: '2030-01-14T17:00:00.000Z', end: '2030-01-14T17:20:00.000Z', provider_id: AVERY, provider_name: 'Avery Quill', duration: 20 });
  });

  it('orders providers of the same name by id', () => {
    const twin = (id: string) => provider({ id, working_hours: hours([1], ['09:00', '10:00']) });
    const slots = slotsOf({ providers: [twin('ffffffffffffffffffffff01'), twin('0000000000000000000000ff')], duration: 60 });
    expect(slots.map((s) => s.provider_id)).toEqual(['0000000000000000000000ff', 'ffffffffffffffffffffff01']);
  });

  it("cuts a provider's evening from the local day, whatever its UTC date (Honolulu, UTC-10)", () => {
    const honolulu = provider({ time_zone: 'Pacific/Honolulu', working_hours: hours([1], ['18:00', '20:00']) });
    expect(utc(slotsOf({ providers: [honolulu], duration: 60, start: '2030-01-15T00:00:00.000Z', end: '2030-01-15T12:00:00.000Z' }))).toEqual([
      '2030-01-15T04:00Z/05:00Z',
      '2030-01-15T05:00Z/06:00Z',
    ]);
  });

  it('covers every day of a 31-day window', () => {
    const slots = slotsOf({ providers: [provider({ working_hours: hours(EVERY_DAY, ['09:00', '10:00']) })], duration: 60, start: '2030-01-01T00:00:00.000Z', end: '2030-02-01T00:00:00.000Z' });
    expect(slots).toHaveLength(31);
    expect(slots[30]!.start).toBe('2030-01-31T09:00:00.000Z');
  });

  it('refuses a duration that is not a positive whole number, and a window that is not a date-time', () => {
    expect(() => slotsOf({ providers: monday(['09:00', '10:00']), duration: 0 })).toThrow(RangeError);
    expect(() => slotsOf({ providers: monday(['09:00', '10:00']), duration: 12.5 })).toThrow(RangeError);
    expect(() => slotsOf({ providers: monday(['09:00', '10:00']), duration: 30, start: 'tomorrow' })).toThrow(/start is not a date-time/);
  });
});

describe('licensed states are the caller’s filter: the providers of the questionnaire’s program licensed in the state', () => {
  const index = new CareTeamIndex(sample());
  const names = (questionnaire: string, state: string) => index.providersFor(questionnaire, state).map((p) => p.last_name);
  const WEIGHT_INTAKE = '6a1f35f64d3d318443a763de';
  const MENOPAUSE = '6a1ff1d2ce440affc36c6c48';
  const URGENT_CARE = '6a1fad6fbd1cc8e3db287076';

  it.each<[string, string, string, string[]]>([
    ['weight management in New York', WEIGHT_INTAKE, 'NY', ['Sampleton', 'Imaginaire']],
    ["women's health in Arizona", MENOPAUSE, 'AZ', ['Exampleby', 'Pretendergast']],
    ['urgent care in Texas', URGENT_CARE, 'TX', ['Testwood', 'Fauxley']],
    ['urgent care in New York (a provider of another program licensed there is not one)', URGENT_CARE, 'NY', ['Mockingbird', 'Imaginaire']],
    ['a questionnaire id in upper case', WEIGHT_INTAKE.toUpperCase(), 'NY', ['Sampleton', 'Imaginaire']],
    ['a state no provider of the program is licensed in', MENOPAUSE, 'AK', []],
    ['an unknown questionnaire', 'ffffffffffffffffffffffff', 'NY', []],
  ])('%s', (_, questionnaire, state, expected) => {
    expect(names(questionnaire, state)).toEqual(expected);
  });

  it("lists the states of a program's providers, sorted, each once", () => {
    expect(index.licensedStates('6a1f58c250b1f417c246e230')).toEqual(['AK', 'AR', 'AZ', 'CA', 'CO', 'FL', 'GA', 'HI', 'ID', 'IL', 'LA', 'NC', 'NM', 'NV', 'NY', 'OK', 'OR', 'SC', 'TX', 'UT', 'WA', 'WY']);
    expect(index.licensedStates('ffffffffffffffffffffffff')).toEqual([]);
  });

  it('the schedule offers only the providers it is given', () => {
    const providers = index.providersFor(URGENT_CARE, 'TX');
    const slots = openSlots({ providers, start: '2030-01-14T00:00:00.000Z', end: '2030-01-19T00:00:00.000Z', durationMinutes: 15, busy: [] });
    expect(slots.length).toBeGreaterThan(0);
    expect(new Set(slots.map((s) => s.provider_name))).toEqual(new Set(['Oren Testwood', 'Marisol Fauxley']));
  });
});

describe('daylight saving time: working hours are wall-clock hours', () => {
  const allWeek = (timeZone: string, start: string, end: string) => [provider({ time_zone: timeZone, working_hours: hours(EVERY_DAY, [start, end]) })];
  const days = (first: string, last: string) => ({ start: `${first}T00:00:00.000Z`, end: `${last}T00:00:00.000Z` });

  it.each<[string, Case, string[]]>([
    [
      'New York 09:00-17:00 across the spring change (2030-03-10): 14:00 UTC before, 13:00 UTC after',
      { providers: allWeek('America/New_York', '09:00', '17:00'), duration: 480, ...days('2030-03-08', '2030-03-13') },
      ['2030-03-08T14:00Z/22:00Z', '2030-03-09T14:00Z/22:00Z', '2030-03-10T13:00Z/21:00Z', '2030-03-11T13:00Z/21:00Z', '2030-03-12T13:00Z/21:00Z'],
    ],
    [
      'New York 09:00-17:00 across the fall change (2030-11-03): 13:00 UTC before, 14:00 UTC after',
      { providers: allWeek('America/New_York', '09:00', '17:00'), duration: 480, ...days('2030-11-01', '2030-11-06') },
      ['2030-11-01T13:00Z/21:00Z', '2030-11-02T13:00Z/21:00Z', '2030-11-03T14:00Z/22:00Z', '2030-11-04T14:00Z/22:00Z', '2030-11-05T14:00Z/22:00Z'],
    ],
    [
      'Phoenix keeps 09:00 at 16:00 UTC through both',
      { providers: allWeek('America/Phoenix', '09:00', '10:00'), duration: 60, ...days('2030-03-09', '2030-03-12') },
      ['2030-03-09T16:00Z/17:00Z', '2030-03-10T16:00Z/17:00Z', '2030-03-11T16:00Z/17:00Z'],
    ],
    [
      'Phoenix in November too',
      { providers: allWeek('America/Phoenix', '09:00', '10:00'), duration: 60, ...days('2030-11-02', '2030-11-05') },
      ['2030-11-02T16:00Z/17:00Z', '2030-11-03T16:00Z/17:00Z', '2030-11-04T16:00Z/17:00Z'],
    ],
    [
      "London changes on its own date (2030-03-31), not New York's",
      { providers: allWeek('Europe/London', '09:00', '10:00'), duration: 60, ...days('2030-03-09', '2030-03-11') },
      ['2030-03-09T09:00Z/10:00Z', '2030-03-10T09:00Z/10:00Z'],
    ],
    [
      'London: 09:00 is 09:00 UTC before its change and 08:00 UTC after',
      { providers: allWeek('Europe/London', '09:00', '10:00'), duration: 60, ...days('2030-03-30', '2030-04-01') },
      ['2030-03-30T09:00Z/10:00Z', '2030-03-31T08:00Z/09:00Z'],
    ],
    [
      'Sydney falls back in April (2030-04-07): 09:00 is 22:00 UTC the day before, then 23:00',
      { providers: allWeek('Australia/Sydney', '09:00', '10:00'), duration: 60, ...days('2030-04-05', '2030-04-08') },
      ['2030-04-05T22:00Z/23:00Z', '2030-04-06T23:00Z/00:00Z', '2030-04-07T23:00Z/00:00Z'],
    ],
    // Overnight, in New York: the clocks go from 02:00 to 03:00 on 2030-03-10, and from 02:00 back to 01:00 on 2030-11-03.
    [
      'spring forward, 01:00-03:00 by 30 minutes: 02:00 and 02:30 do not exist and are skipped',
      { providers: allWeek('America/New_York', '01:00', '03:00'), duration: 30, ...days('2030-03-10', '2030-03-11') },
      ['2030-03-10T06:00Z/06:30Z', '2030-03-10T06:30Z/07:00Z'],
    ],
    [
      'spring forward, 01:30-03:30 by 60 minutes: 01:30 lasts an hour (to 03:30 by the clock), 02:30 is skipped',
      { providers: allWeek('America/New_York', '01:30', '03:30'), duration: 60, ...days('2030-03-10', '2030-03-11') },
      ['2030-03-10T06:30Z/07:30Z'],
    ],
    [
      'spring forward, 01:30-03:00 by 60 minutes: 01:30 would end at 03:30 by the clock, after the period, so there is none',
      { providers: allWeek('America/New_York', '01:30', '03:00'), duration: 60, ...days('2030-03-10', '2030-03-11') },
      [],
    ],
    [
      'spring forward, 01:30-04:30 by 90 minutes: 03:00 would overlap 01:30 (which ends at 04:00 by the clock) and is dropped',
      { providers: allWeek('America/New_York', '01:30', '04:30'), duration: 90, ...days('2030-03-10', '2030-03-11') },
      ['2030-03-10T06:30Z/08:00Z'],
    ],
    [
      'spring forward, a period ending at 02:30 (which does not exist) ends when the clocks jump',
      { providers: allWeek('America/New_York', '00:00', '02:30'), duration: 60, ...days('2030-03-10', '2030-03-11') },
      ['2030-03-10T05:00Z/06:00Z', '2030-03-10T06:00Z/07:00Z'],
    ],
    [
      'fall back, 01:00-03:00 by 30 minutes: the repeated 01:00 and 01:30 are offered once, in daylight time',
      { providers: allWeek('America/New_York', '01:00', '03:00'), duration: 30, ...days('2030-11-03', '2030-11-04') },
      ['2030-11-03T05:00Z/05:30Z', '2030-11-03T05:30Z/06:00Z', '2030-11-03T07:00Z/07:30Z', '2030-11-03T07:30Z/08:00Z'],
    ],
    [
      'fall back, 01:00-03:00 by 60 minutes',
      { providers: allWeek('America/New_York', '01:00', '03:00'), duration: 60, ...days('2030-11-03', '2030-11-04') },
      ['2030-11-03T05:00Z/06:00Z', '2030-11-03T07:00Z/08:00Z'],
    ],
    [
      'fall back, an appointment in the second 01:00 hour (standard time) takes no slot',
      { providers: allWeek('America/New_York', '01:00', '03:00'), duration: 30, ...days('2030-11-03', '2030-11-04'), busy: [{ provider_id: AVERY, start: '2030-11-03T06:00:00.000Z', end: '2030-11-03T07:00:00.000Z' }] },
      ['2030-11-03T05:00Z/05:30Z', '2030-11-03T05:30Z/06:00Z', '2030-11-03T07:00Z/07:30Z', '2030-11-03T07:30Z/08:00Z'],
    ],
    [
      'fall back, an appointment at the first 01:00 takes that slot',
      { providers: allWeek('America/New_York', '01:00', '03:00'), duration: 30, ...days('2030-11-03', '2030-11-04'), busy: [{ provider_id: AVERY, start: '2030-11-03T05:00:00.000Z', end: '2030-11-03T05:30:00.000Z' }] },
      ['2030-11-03T05:30Z/06:00Z', '2030-11-03T07:00Z/07:30Z', '2030-11-03T07:30Z/08:00Z'],
    ],
    [
      'fall back, 01:00-02:00 off that day is the whole repeated hour and the first',
      {
        providers: [provider({ time_zone: 'America/New_York', working_hours: hours([7], ['01:00', '03:00']), exceptions: [{ date: '2030-11-03', start: '01:00', end: '02:00' }] })],
        duration: 30,
        ...days('2030-11-03', '2030-11-04'),
      },
      ['2030-11-03T07:00Z/07:30Z', '2030-11-03T07:30Z/08:00Z'],
    ],
    [
      'Phoenix 01:00-03:00 keeps its four half hours on both days',
      { providers: allWeek('America/Phoenix', '01:00', '03:00'), duration: 30, start: '2030-03-10T00:00:00.000Z', end: '2030-03-10T12:00:00.000Z' },
      ['2030-03-10T08:00Z/08:30Z', '2030-03-10T08:30Z/09:00Z', '2030-03-10T09:00Z/09:30Z', '2030-03-10T09:30Z/10:00Z'],
    ],
  ])('%s', (_, c, expected) => {
    expect(utc(slotsOf(c))).toEqual(expected);
  });
});

describe('the wall clock of a time zone (Intl only)', () => {
  it.each<[string, string, number]>([
    ['America/New_York', '2030-01-15T12:00:00Z', -5],
    ['America/New_York', '2030-07-15T12:00:00Z', -4],
    ['America/Phoenix', '2030-01-15T12:00:00Z', -7],
    ['America/Phoenix', '2030-07-15T12:00:00Z', -7],
    ['Asia/Kolkata', '2030-07-15T12:00:00Z', 5.5],
    ['Pacific/Chatham', '2030-01-15T12:00:00Z', 13.75],
    ['Pacific/Chatham', '2030-07-15T12:00:00Z', 12.75],
    ['UTC', '2030-07-15T12:00:00Z', 0],
  ])('%s at %s is UTC%+d hours', (zone, instant, hoursOffset) => {
    expect(offsetAt(zone, Date.parse(instant))).toBe(hoursOffset * HOURS);
  });

  it.each<[string, string, string, string, string]>([
    ['America/New_York', '2030-03-10', '01:59', 'unique', '2030-03-10T06:59:00.000Z'],
    ['America/New_York', '2030-03-10', '02:30', 'skipped', '2030-03-10T07:00:00.000Z'],
    ['America/New_York', '2030-03-10', '03:00', 'unique', '2030-03-10T07:00:00.000Z'],
    ['America/New_York', '2030-11-03', '00:59', 'unique', '2030-11-03T04:59:00.000Z'],
    ['America/New_York', '2030-11-03', '01:30', 'repeated', '2030-11-03T05:30:00.000Z'],
    ['America/New_York', '2030-11-03', '02:00', 'unique', '2030-11-03T07:00:00.000Z'],
    ['America/Phoenix', '2030-03-10', '02:30', 'unique', '2030-03-10T09:30:00.000Z'],
    ['Europe/London', '2030-03-31', '01:30', 'skipped', '2030-03-31T01:00:00.000Z'],
    ['Australia/Sydney', '2030-04-07', '02:30', 'repeated', '2030-04-06T15:30:00.000Z'],
    // Half an hour changes, and changes at midnight (Cuba, 2020).
    ['Australia/Lord_Howe', '2030-10-06', '02:15', 'skipped', '2030-10-05T15:30:00.000Z'],
    ['America/Havana', '2020-03-08', '00:30', 'skipped', '2020-03-08T05:00:00.000Z'],
    ['America/Havana', '2020-11-01', '00:30', 'repeated', '2020-11-01T04:30:00.000Z'],
  ])('%s %s %s is %s: %s', (zone, date, time, kind, instant) => {
    const resolved = resolveLocal(zone, localOf(date, time));
    expect({ kind: resolved.kind, instant: new Date(resolved.instant).toISOString() }).toEqual({ kind, instant });
    expect(zonedToInstant(zone, date, time)).toBe(instant);
  });

  it('reads an instant back as its local date, time and weekday', () => {
    expect(instantToZoned('America/New_York', '2030-03-10T07:00:00.000Z')).toEqual({ date: '2030-03-10', time: '03:00', weekday: 7 });
    expect(instantToZoned('America/New_York', '2030-11-03T06:30:00.000Z')).toEqual({ date: '2030-11-03', time: '01:30', weekday: 7 });
    expect(instantToZoned('Pacific/Honolulu', '2030-01-15T04:00:00.000Z')).toEqual({ date: '2030-01-14', time: '18:00', weekday: 1 });
  });

  const ZONES = ['America/New_York', 'America/Phoenix', 'Europe/London', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata'];

  it.each(ZONES)('%s: every instant of 2030 (each 37 minutes) reads back to itself, or to the first occurrence of a repeated time', (zone) => {
    const wrong: string[] = [];
    let repeated = 0;
    for (let t = Date.UTC(2030, 0, 1); t < Date.UTC(2031, 0, 1); t += 37 * 60_000) {
      const local = localAt(zone, t);
      const resolved = resolveLocal(zone, local);
      if (resolved.kind === 'repeated') repeated++;
      const right = resolved.kind === 'repeated' ? resolved.instant <= t && localAt(zone, resolved.instant) === local : resolved.kind === 'unique' && resolved.instant === t;
      if (!right) wrong.push(new Date(t).toISOString());
    }
    expect(wrong).toEqual([]);
    // Zones with daylight saving time meet their repeated hour (twice: once in each occurrence).
    expect(repeated > 0).toBe(!['America/Phoenix', 'Asia/Kolkata'].includes(zone));
  });

  it.each(ZONES)('%s: the days of 2030 read their times as resolveLocal does, every quarter hour', (zone) => {
    const first = Date.UTC(2030, 0, 1) / DAY_MS;
    const differences: string[] = [];
    for (const day of localDays(zone, first, first + 364)) {
      for (let minute = 0; minute <= 1440; minute += 15) {
        const resolved = resolveLocal(zone, day.number * DAY_MS + minute * 60_000);
        const existing = resolved.kind === 'skipped' ? Number.NaN : resolved.instant;
        // 1440 is the next midnight, an end only: whether it exists is the next day's question.
        const existingRight = minute === 1440 || Object.is(day.existing(minute), existing);
        if (day.instant(minute) !== resolved.instant || !existingRight) differences.push(`day ${day.number} minute ${minute}`);
      }
    }
    expect(differences).toEqual([]);
  });
});

describe('instants as text', () => {
  it('are written as toISOString writes them', () => {
    const instants = [0, -1, Date.UTC(1969, 11, 31, 23, 59), Date.UTC(2030, 0, 15, 17), Date.UTC(2030, 0, 15, 17, 0, 0, 1), Date.UTC(2030, 1, 28, 23, 59, 59, 999), Date.UTC(2032, 1, 29), Date.UTC(9999, 11, 31, 23, 59), Date.UTC(10000, 0, 1)];
    for (let t = Date.UTC(2029, 11, 1); t < Date.UTC(2031, 1, 1); t += 7 * 60_000 + 13) instants.push(t, t - (t % 60_000));
    expect(instants.filter((instant) => instantText(instant) !== new Date(instant).toISOString())).toEqual([]);
  });

  it('are read as Date.parse reads them', () => {
    const texts = ['2030-01-15T17:00:00.000Z', '2030-01-15T17:00:00Z', '2030-01-15T17:00:00.123Z', '2032-02-29T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2030-01-15T17:00:00+02:00', '2030-02-30T00:00:00.000Z', '2030-01-15T24:00:00.000Z', '2030-13-01T00:00:00.000Z', '2030-01-1aT17:00:00.000Z', 'soon', ''];
    for (let t = Date.UTC(2029, 11, 1); t < Date.UTC(2031, 1, 1); t += 7 * 60_000 + 13) texts.push(new Date(t).toISOString());
    expect(texts.filter((text) => !Object.is(parseInstant(text), Date.parse(text)))).toEqual([]);
  });
});
