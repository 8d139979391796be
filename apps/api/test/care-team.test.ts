// The care team of each environment (seed 4.7): programs, questionnaires and providers with
// their licences and hours; the shipped sample, the rules an import must pass, and storage.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCareTeam } from '../src/admin/care-team-commands.js';
import type { CareTeam } from '../src/care-team/care-team.js';
import { readCareTeamFile } from '../src/care-team/care-team-files.js';
import { CareTeamRepository } from '../src/care-team/care-team-repository.js';
import { checkCareTeam, npiCheckDigit } from '../src/care-team/care-team-rules.js';
import { describeProblem, InvalidDocumentError } from '../src/db/environment-documents.js';
import { CareTeams } from '../src/care-team/care-team-service.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLE_FILE = join(apiRoot, 'reference-data/care-team.json');
const sampleText = readFileSync(SAMPLE_FILE, 'utf8');
const sample = (): CareTeam => JSON.parse(sampleText);

const OBJECT_ID = /^[0-9a-f]{24}$/;
const WEIGHT = '6a1fe599f2aa13517b7e90fa';
const WEIGHT_INTAKE = '6a1f35f64d3d318443a763de';
const URGENT_CARE_VISIT = '6a1fad6fbd1cc8e3db287076';
const EMPTY: CareTeam = { programs: [], questionnaires: [], providers: [] };

function problemsOf(value: unknown): string[] {
  return checkCareTeam(value).problems?.map(describeProblem) ?? [];
}

describe('the shipped sample care team', () => {
  it('follows every rule', () => {
    const checked = readCareTeamFile(sampleText, SAMPLE_FILE);
    expect(checked.problems).toBeUndefined();
    expect(checked.careTeam).toEqual(sample());
  });

  it('has 3 programs, 5 questionnaires of 15 to 60 minutes and 11 providers, every one named by a 24-hex id', () => {
    const team = sample();
    expect(team.programs.map((p) => p.name)).toEqual(['Weight management', "Women's health", 'Urgent care']);
    expect(team.questionnaires).toHaveLength(5);
    for (const q of team.questionnaires) expect(q.default_duration_minutes >= 15 && q.default_duration_minutes <= 60).toBe(true);
    expect(team.providers).toHaveLength(11);
    for (const { id } of [...team.programs, ...team.questionnaires, ...team.providers]) expect(id).toMatch(OBJECT_ID);
  });

  it('has MDs, NPs and DOs with valid NPIs, licensed in several states, in zones across the US (Phoenix without DST), with split days and days off', () => {
    const providers = sample().providers;
    expect(new Set(providers.map((p) => p.title))).toEqual(new Set(['MD', 'NP', 'DO']));
    for (const p of providers) {
      expect(Number(p.npi[9]), p.npi).toBe(npiCheckDigit(p.npi.slice(0, 9)));
      expect(p.licensed_states.length).toBeGreaterThanOrEqual(3);
    }
    expect(new Set(providers.map((p) => p.time_zone))).toEqual(
      new Set(['America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu']),
    );
    const splitDays = providers.filter((p) => p.working_hours.some((a, i) => p.working_hours.some((b, j) => i !== j && a.weekday === b.weekday)));
    expect(splitDays.length).toBeGreaterThanOrEqual(8);
    const exceptions = providers.flatMap((p) => p.exceptions);
    expect(exceptions.some((e) => e.start === undefined)).toBe(true);
    expect(exceptions.some((e) => e.start !== undefined)).toBe(true);
  });
});

describe('NPIs', () => {
  it.each([
    ['123456789', 3], // 1234567893, the NPI standard's example
    ['174382905', 7],
    ['128650437', 2],
    ['000000000', 6],
  ])('the check digit of %s is %d (Luhn over 80840 and the first 9 digits)', (first9, digit) => {
    expect(npiCheckDigit(first9)).toBe(digit);
  });
});

type Mutation = (c: CareTeam) => unknown;
const edit =
  (change: (c: CareTeam) => void): Mutation =>
  (c) => {
    change(c);
    return c;
  };
const provider0 = (change: (p: CareTeam['providers'][number]) => void): Mutation => edit((c) => change(c.providers[0]!));

describe('a care team that breaks a rule is refused, each problem naming its place', () => {
  it.each<[string, Mutation, string]>([
    // Ids.
    ['a program id that is not 24 hex characters', edit((c) => (c.programs[0]!.id = 'weight-management')), 'programs[0].id: must be 24 hexadecimal characters'],
    ['a provider id of 23 characters', provider0((p) => (p.id = p.id.slice(1))), 'providers[0].id: must be 24 hexadecimal characters'],
    ['two providers of one id', edit((c) => (c.providers[3]!.id = c.providers[1]!.id)), 'providers[3].id: repeats the id of providers[1]'],
    ['a questionnaire with the id of a program', edit((c) => (c.questionnaires[2]!.id = c.programs[0]!.id.toUpperCase())), 'questionnaires[2].id: repeats the id of programs[0]'],
    // References.
    ['a questionnaire of an unknown program', edit((c) => (c.questionnaires[1]!.program_id = 'ffffffffffffffffffffffff')), 'questionnaires[1].program_id: names no program of the care team'],
    ['a provider of an unknown program', provider0((p) => p.program_ids.push('ffffffffffffffffffffffff')), 'providers[0].program_ids[2]: names no program of the care team'],
    ['a provider listing a program twice', provider0((p) => p.program_ids.push(p.program_ids[0]!)), 'providers[0].program_ids[2]: repeats program_ids[0]'],
    ['a provider of no program', provider0((p) => (p.program_ids = [])), 'providers[0].program_ids: must list at least 1'],
    // States.
    ['a state in lower case', provider0((p) => (p.licensed_states[1] = 'nj')), 'providers[0].licensed_states[1]: must be a state as two upper-case letters (CA)'],
    ['a state of three letters', provider0((p) => (p.licensed_states[0] = 'NYC')), 'providers[0].licensed_states[0]: must be a state as two upper-case letters (CA)'],
    ['a state listed twice', provider0((p) => p.licensed_states.push('NY')), 'providers[0].licensed_states[5]: repeats licensed_states[0]'],
    ['a provider licensed nowhere', provider0((p) => (p.licensed_states = [])), 'providers[0].licensed_states: must list at least 1'],
    // Time zones.
    ['an unknown time zone', edit((c) => (c.providers[2]!.time_zone = 'America/Nowhere')), 'providers[2].time_zone: is not a time zone this system knows (an IANA name such as America/Chicago)'],
    ['an empty time zone', edit((c) => (c.providers[2]!.time_zone = '')), 'providers[2].time_zone: must be an IANA time zone name (America/Chicago)'],
    // Working hours.
    ['a time without its leading zero', provider0((p) => (p.working_hours[0]!.start = '8:00')), 'providers[0].working_hours[0].start: must be a time of day as HH:MM (00:00 to 23:59)'],
    ['a start at 24:00', provider0((p) => (p.working_hours[0]!.start = '24:00')), 'providers[0].working_hours[0].start: must be a time of day as HH:MM (00:00 to 23:59)'],
    ['an end at 25:00', provider0((p) => (p.working_hours[0]!.end = '25:00')), 'providers[0].working_hours[0].end: must be a time of day as HH:MM (00:00 to 24:00)'],
    ['an end at 12:60', provider0((p) => (p.working_hours[0]!.end = '12:60')), 'providers[0].working_hours[0].end: must be a time of day as HH:MM (00:00 to 24:00)'],
    ['a period that ends when it starts', provider0((p) => (p.working_hours[0]!.end = '08:00')), 'providers[0].working_hours[0].end: must be later than start (08:00)'],
    ['a period that ends before it starts', provider0((p) => (p.working_hours[1]!.end = '12:30')), 'providers[0].working_hours[1].end: must be later than start (13:00)'],
    ['periods of one weekday that overlap', provider0((p) => (p.working_hours[1]!.start = '11:00')), 'providers[0].working_hours[1]: overlaps working_hours[0] (Monday 08:00-12:00)'],
    ['a period listed first that overlaps a later one', provider0((p) => p.working_hours.unshift({ weekday: 5, start: '16:00', end: '18:00' })), 'providers[0].working_hours[0]: overlaps working_hours[10] (Friday 13:00-17:00)'],
    ['weekday 0', provider0((p) => (p.working_hours[0]!.weekday = 0)), 'providers[0].working_hours[0].weekday: must be a whole number from 1 to 7'],
    ['weekday 8', provider0((p) => (p.working_hours[0]!.weekday = 8)), 'providers[0].working_hours[0].weekday: must be a whole number from 1 to 7'],
    ['a weekday as a name', provider0((p) => ((p.working_hours[0] as { weekday: unknown }).weekday = 'Monday')), 'providers[0].working_hours[0].weekday: must be a whole number from 1 to 7'],
    // Exceptions.
    ['a date that is not in the calendar', provider0((p) => (p.exceptions[0]!.date = '2026-02-30')), 'providers[0].exceptions[0].date: must be a calendar date as YYYY-MM-DD'],
    ['a date in another form', provider0((p) => (p.exceptions[0]!.date = '12/25/2026')), 'providers[0].exceptions[0].date: must be a calendar date as YYYY-MM-DD'],
    ['an exception with a start only', provider0((p) => (p.exceptions[0]!.start = '09:00')), 'providers[0].exceptions[0]: must give both start and end (part of the day off), or neither (the whole day off)'],
    ['an exception that ends before it starts', provider0((p) => (p.exceptions[1]!.end = '12:00')), 'providers[0].exceptions[1].end: must be later than start (13:00)'],
    ['an exception at 9:00', provider0((p) => (p.exceptions[1]!.start = '9:00')), 'providers[0].exceptions[1].start: must be a time of day as HH:MM (00:00 to 23:59)'],
    // Durations.
    ['a default duration of 4 minutes', edit((c) => (c.questionnaires[0]!.default_duration_minutes = 4)), 'questionnaires[0].default_duration_minutes: must be a whole number from 5 to 480'],
    ['a default duration of 481 minutes', edit((c) => (c.questionnaires[0]!.default_duration_minutes = 481)), 'questionnaires[0].default_duration_minutes: must be a whole number from 5 to 480'],
    ['a default duration of 30.5 minutes', edit((c) => (c.questionnaires[0]!.default_duration_minutes = 30.5)), 'questionnaires[0].default_duration_minutes: must be a whole number from 5 to 480'],
    ['a default duration as text', edit((c) => ((c.questionnaires[0] as { default_duration_minutes: unknown }).default_duration_minutes = '30')), 'questionnaires[0].default_duration_minutes: must be a whole number from 5 to 480'],
    // NPIs.
    ['an NPI with a wrong check digit', provider0((p) => (p.npi = '1743829058')), 'providers[0].npi: has a wrong check digit for an NPI (1743829057 would be valid)'],
    ['an NPI of 9 digits', provider0((p) => (p.npi = '174382905')), 'providers[0].npi: must be an NPI: 10 digits, as a string'],
    ['an NPI as a number', provider0((p) => ((p as { npi: unknown }).npi = 1743829057)), 'providers[0].npi: must be an NPI: 10 digits, as a string'],
    ['two providers of one NPI', edit((c) => (c.providers[4]!.npi = c.providers[2]!.npi)), 'providers[4].npi: repeats the NPI of providers[2]'],
    // Names and shape.
    ['an empty first name', provider0((p) => (p.first_name = ' ')), 'providers[0].first_name: must not be empty'],
    ['a last name of 101 characters', provider0((p) => (p.last_name = 'x'.repeat(101))), 'providers[0].last_name: must be at most 100 characters'],
    ['a program without a name', edit((c) => delete (c.programs[1] as Partial<CareTeam['programs'][number]>).name), 'programs[1].name: is required'],
    ['a provider without a time zone', provider0((p) => delete (p as Partial<typeof p>).time_zone), 'providers[0].time_zone: is required'],
    ['a field the care team does not know', provider0((p) => Object.assign(p, { email: 'h@example.com' })), 'providers[0].email: is not allowed'],
    ['501 providers', (c) => ({ ...c, providers: Array.from({ length: 501 }, () => c.providers[0]) }), 'providers: must list at most 500 (it lists 501)'],
    ['no providers list', (c) => ({ programs: c.programs, questionnaires: c.questionnaires }), 'providers: is required'],
    ['something else than a care team', () => [], 'care team: must be an object'],
  ])('%s', (_, mutate, problem) => {
    expect(problemsOf(mutate(sample()))).toContain(problem);
  });

  it('says a provider that is not an object once', () => {
    expect(problemsOf({ ...EMPTY, providers: [42] })).toEqual(['providers[0]: must be an object']);
  });

  it('takes ids in any case and answers them in lower case, and a left-out title as null', () => {
    const team = sample();
    team.programs[0]!.id = team.programs[0]!.id.toUpperCase();
    delete (team.providers[0] as { title?: string | null }).title;
    const checked = checkCareTeam(team).careTeam!;
    expect(checked.programs[0]!.id).toBe(WEIGHT);
    expect(checked.providers[0]!.title).toBeNull();
  });

  it('allows periods that touch, and a period to midnight (24:00)', () => {
    const team = sample();
    team.providers[0]!.working_hours = [
      { weekday: 1, start: '08:00', end: '12:00' },
      { weekday: 1, start: '12:00', end: '24:00' },
    ];
    expect(problemsOf(team)).toEqual([]);
  });

  it('reads .json files only, and says JSON that does not parse', () => {
    expect(readCareTeamFile(sampleText, 'care-team.csv').problems?.map(describeProblem)).toEqual(['care-team.csv: must be a .json file (the CareTeam document)']);
    expect(readCareTeamFile('{"programs": [', 'care-team.json').problems?.map(describeProblem)).toEqual([expect.stringMatching(/^JSON: cannot be parsed: /)]);
    expect(readCareTeamFile(`\uFEFF${sampleText}`, 'CARE-TEAM.JSON').problems).toBeUndefined();
  });
});

describe('the care teams of the environments', () => {
  let database: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'care-team-'));
  const newCareTeams = (cacheMs?: number, sampleFile = SAMPLE_FILE) => new CareTeams(new CareTeamRepository(database.handle.db), sampleFile, cacheMs);
  /** The sample with its weight management program only. */
  const weightOnly = () => {
    const team = sample();
    return JSON.stringify({
      programs: [team.programs[0]],
      questionnaires: team.questionnaires.filter((q) => q.program_id === WEIGHT),
      providers: team.providers.filter((p) => p.program_ids.includes(WEIGHT)).map((p) => ({ ...p, program_ids: [WEIGHT] })),
    });
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    // Until the consults migration (016) creates it.
    await database.handle.db.schema
      .createTable('care_teams')
      .ifNotExists()
      .addColumn('environment', 'text', (c) => c.primaryKey())
      .addColumn('care_team', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('imported_at', 'text', (c) => c.notNull())
      .execute();
  });
  // Each story starts with nothing imported.
  beforeEach(async () => {
    await database.handle.db.deleteFrom('care_teams').execute();
  });
  afterAll(async () => {
    await database?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the sandbox answers the shipped sample and production an empty care team until one is imported', async () => {
    const fresh = newCareTeams();
    expect(await fresh.of('sandbox')).toEqual(sample());
    expect(await fresh.origin('sandbox')).toEqual({ environment: 'sandbox', source: 'shipped sample', imported_at: null });
    expect(await fresh.of('production')).toEqual(EMPTY);
    expect(await fresh.origin('production')).toEqual({ environment: 'production', source: 'none', imported_at: null });
    expect(await fresh.providersFor('production', WEIGHT_INTAKE, 'NY')).toEqual([]);
  });

  it('an import replaces the environment care team, answers its counts, and leaves the other environment alone', async () => {
    const instance = newCareTeams();
    expect(await instance.import('production', weightOnly(), '/somewhere/weight.json')).toEqual({ programs: 1, questionnaires: 2, providers: 5 });
    expect((await instance.of('production')).programs.map((p) => p.id)).toEqual([WEIGHT]);
    expect(await instance.origin('production')).toEqual({ environment: 'production', source: 'weight.json', imported_at: expect.any(String) });
    expect(await instance.of('sandbox')).toEqual(sample());

    // A second import replaces the first whole.
    expect(await instance.import('production', sampleText, 'full.json')).toEqual({ programs: 3, questionnaires: 5, providers: 11 });
    expect(await instance.of('production')).toEqual(sample());
    const rows = await database.handle.db.selectFrom('care_teams').selectAll().execute();
    expect(rows.map((r) => [r.environment, r.source])).toEqual([['production', 'full.json']]);
    expect(await newCareTeams().of('production')).toEqual(sample());
  });

  it('an invalid import throws every problem and stores nothing', async () => {
    const instance = newCareTeams();
    const before = await instance.of('sandbox');
    const broken = sample();
    broken.providers[1]!.time_zone = 'Mars/Olympus_Mons';
    broken.questionnaires[0]!.default_duration_minutes = 0;
    const refused = await instance.import('sandbox', JSON.stringify(broken), 'broken.json').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidDocumentError);
    expect((refused as InvalidDocumentError).problems).toEqual([
      'questionnaires[0].default_duration_minutes: must be a whole number from 5 to 480',
      'providers[1].time_zone: is not a time zone this system knows (an IANA name such as America/Chicago)',
    ]);
    await expect(instance.import('sandbox', sampleText, 'care-team.txt')).rejects.toBeInstanceOf(InvalidDocumentError);
    expect(await database.handle.db.selectFrom('care_teams').select('environment').execute()).toEqual([]);
    expect(await instance.of('sandbox')).toEqual(before);
  });

  it('an import through one instance is seen by another on the same database within its cache time', async () => {
    const reader = newCareTeams(300);
    const writer = newCareTeams(300);
    expect((await reader.of('sandbox')).providers).toHaveLength(11);
    await writer.import('sandbox', weightOnly(), 'weight.json');
    expect((await writer.of('sandbox')).providers).toHaveLength(5);
    // Still the cached care team...
    expect((await reader.of('sandbox')).providers).toHaveLength(11);
    await new Promise((resolve) => setTimeout(resolve, 350));
    // ...until the cache time has passed.
    expect((await reader.of('sandbox')).providers).toHaveLength(5);
    expect((await reader.origin('sandbox')).source).toBe('weight.json');
  });

  it('a broken sample file fails with the file and its problems named, until it is fixed', async () => {
    const file = join(dir, 'sample.json');
    const broken = sample();
    broken.providers[0]!.npi = '1743829058';
    writeFileSync(file, JSON.stringify(broken));
    const instance = newCareTeams(0, file);
    const error = (await instance.of('sandbox').catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`the sandbox's care team (${file}) is not a valid care team`);
    expect(error.message).toContain('providers[0].npi: has a wrong check digit for an NPI (1743829057 would be valid)');
    await expect(newCareTeams(0, join(dir, 'missing.json')).of('sandbox')).rejects.toThrow(/missing\.json\) cannot be read/);
    // Production never reads it.
    expect(await instance.of('production')).toEqual(EMPTY);
    writeFileSync(file, sampleText);
    expect(await instance.of('sandbox')).toEqual(sample());
  });

  it('finds a questionnaire by id in any case, and the providers of its program licensed in a state', async () => {
    const instance = newCareTeams();
    expect(await instance.questionnaire('sandbox', URGENT_CARE_VISIT.toUpperCase())).toMatchObject({ name: 'Urgent care visit', default_duration_minutes: 15 });
    expect(await instance.questionnaire('sandbox', 'ffffffffffffffffffffffff')).toBeUndefined();
    expect((await instance.providersFor('sandbox', URGENT_CARE_VISIT, 'CA')).map((p) => p.last_name)).toEqual(['Demonstra', 'Notreal', 'Hypothetico']);
    await instance.import('sandbox', weightOnly(), 'weight.json');
    expect(await instance.questionnaire('sandbox', URGENT_CARE_VISIT)).toBeUndefined();
    expect((await instance.providersFor('sandbox', WEIGHT_INTAKE, 'CA')).map((p) => p.last_name)).toEqual(['Pretendergast']);
  });

  it('shares a frozen care team', async () => {
    const team = await newCareTeams().of('sandbox');
    expect(Object.isFrozen(team.providers[0]!.working_hours[0])).toBe(true);
    expect(() => (team.providers as unknown[]).pop()).toThrow(TypeError);
  });

  describe('pnpm admin care-team', () => {
    it('import prints the counts, and show the care team in short', async () => {
      const instance = newCareTeams();
      expect(await runCareTeam(instance, ['import', '--environment', 'production', '--file', SAMPLE_FILE])).toEqual({
        environment: 'production',
        programs: 3,
        questionnaires: 5,
        providers: 11,
      });
      const shown = (await runCareTeam(instance, ['show', '--environment', 'production'])) as Record<string, unknown[]>;
      expect(shown).toMatchObject({ environment: 'production', source: 'care-team.json', imported_at: expect.any(String) });
      expect(shown.programs![0]).toEqual({ id: WEIGHT, name: 'Weight management' });
      expect(shown.questionnaires![0]).toEqual({ id: WEIGHT_INTAKE, name: 'Weight management intake', program: 'Weight management', default_duration_minutes: 30 });
      expect(shown.providers![0]).toEqual({
        id: '6a1f5b09be8e8b98ad0f9d60',
        name: 'Harriet Sampleton, MD',
        npi: '1743829057',
        time_zone: 'America/New_York',
        licensed_states: ['NY', 'NJ', 'CT', 'PA', 'MA'],
        programs: ['Weight management', "Women's health"],
      });
    });

    it('refuses an invalid file with each problem, importing nothing', async () => {
      const instance = newCareTeams();
      const file = join(dir, 'broken.json');
      const broken = sample();
      broken.providers[0]!.licensed_states[0] = 'ny';
      broken.providers[2]!.working_hours[1]!.start = '10:00';
      writeFileSync(file, JSON.stringify(broken));
      const refused = (await runCareTeam(instance, ['import', '--environment', 'sandbox', '--file', file]).catch((e: unknown) => e)) as { code: number; message: string };
      expect(refused.code).toBe(2);
      expect(refused.message).toContain('\nproviders[0].licensed_states[0]: must be a state as two upper-case letters (CA)');
      expect(refused.message).toContain('\nproviders[2].working_hours[1]: overlaps working_hours[0] (Monday 09:00-12:00)');
      expect((await instance.origin('sandbox')).source).toBe('shipped sample');
    });

    it.each([
      ['an unknown environment', ['show', '--environment', 'staging'], '--environment must be sandbox or production'],
      ['an unknown action', ['export', '--environment', 'sandbox'], 'the action must be one of import, show'],
      ['an import without a file', ['import', '--environment', 'sandbox'], '--file is required'],
      ['a file that cannot be read', ['import', '--environment', 'sandbox', '--file', '/nowhere/care-team.json'], '--file /nowhere/care-team.json cannot be read'],
      ['show with a file', ['show', '--environment', 'sandbox', '--file', SAMPLE_FILE], '--file is for import only'],
    ])('refuses %s', async (_, args, message) => {
      await expect(runCareTeam(newCareTeams(), args)).rejects.toMatchObject({ code: 2, message: expect.stringContaining(message) });
    });
  });
});
