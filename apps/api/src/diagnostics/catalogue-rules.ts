import { luhnCheckDigit } from '../check-digits.js';
import type { DocumentProblem } from '../db/environment-documents.js';
import type { CatalogueAnalyte, CatalogueKit, CataloguePanel, CatalogueTest, DiagnosticCatalogue, SampleType } from './catalogue.js';

/**
 * What makes a diagnostics catalogue usable: the shape of `DiagnosticCatalogue`, and the
 * rules the API's answers and the orders depend on (the limits are the spec's: a test
 * lists at most 20 kits and 50 panels, a panel at most 200 results...).
 */
export const CATALOGUE_LIMITS = {
  tests: 500,
  kits: 500,
  kitsPerTest: 20,
  panelsPerTest: 50,
  analytesPerPanel: 200,
  name: 255,
  description: 2000,
  sku: 64,
  code: 64,
  unit: 50,
  /** A qualitative answer (it is the `reference_range` the API shows, at most 100 characters). */
  answer: 100,
  /** The largest magnitude of a reference bound (as of a result's value). */
  bound: 1_000_000_000,
} as const;

export const SAMPLE_TYPES: readonly SampleType[] = ['blood', 'saliva', 'urine', 'stool', 'swab'];
export const PANEL_CODE = /^[A-Za-z0-9_.-]{1,64}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const LOINC_CODE = /^(\d{1,7})-(\d)$/;

/** One thing wrong with a catalogue: where (`tests[2].panels[0].code`, `line 7`) and what. */
export type CatalogueProblem = DocumentProblem;

export type CatalogueCheck = { catalogue: DiagnosticCatalogue; problems?: undefined } | { catalogue?: undefined; problems: CatalogueProblem[] };

/** The LOINC check digit of a code's number (mod 10, as LOINC computes it: Luhn's). */
export function loincCheckDigit(number: string): number {
  return luhnCheckDigit(number);
}

type Fields = Record<string, unknown>;

/** Collects problems while reading a value, and reads its fields by kind. */
class Reading {
  readonly problems: CatalogueProblem[] = [];

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
    if (!Array.isArray(value)) {
      this.fail(`${where}.${key}`, value === undefined ? 'is required' : 'must be an array');
      return [];
    }
    if (value.length < min) this.fail(`${where}.${key}`, `must list at least ${min}`);
    if (value.length > max) this.fail(`${where}.${key}`, `must list at most ${max} (it lists ${value.length})`);
    return value.slice(0, max);
  }

  /** A required, non-blank string of at most `max` characters. */
  text(fields: Fields, key: string, where: string, max: number): string {
    const value = fields[key];
    if (typeof value !== 'string') {
      this.fail(`${where}.${key}`, value === undefined || value === null ? 'is required' : 'must be a string');
      return '';
    }
    this.checkText(value, `${where}.${key}`, max);
    return value;
  }

  /** A string or null (left out: null). */
  optionalText(fields: Fields, key: string, where: string, max: number): string | null {
    const value = fields[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      this.fail(`${where}.${key}`, 'must be a string or null');
      return null;
    }
    this.checkText(value, `${where}.${key}`, max);
    return value;
  }

  private checkText(value: string, where: string, max: number): void {
    if (value.trim() === '') this.fail(where, 'must not be empty');
    else if (value.length > max) this.fail(where, `must be at most ${max} characters`);
  }

  /** A number or null (left out: null). */
  bound(fields: Fields, key: string, where: string): number | null {
    const value = fields[key];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(`${where}.${key}`, 'must be a number or null');
      return null;
    }
    if (Math.abs(value) > CATALOGUE_LIMITS.bound) this.fail(`${where}.${key}`, `must be between -${CATALOGUE_LIMITS.bound} and ${CATALOGUE_LIMITS.bound}`);
    return value;
  }

  boolean(fields: Fields, key: string, where: string): boolean {
    const value = fields[key];
    if (typeof value !== 'boolean') this.fail(`${where}.${key}`, value === undefined ? 'is required' : 'must be true or false');
    return value === true;
  }

  oneOf<T extends string>(fields: Fields, key: string, where: string, allowed: readonly T[]): T {
    const value = fields[key];
    if (!allowed.includes(value as T)) this.fail(`${where}.${key}`, value === undefined ? 'is required' : `must be one of ${allowed.join(', ')}`);
    return value as T;
  }

  /** A version-4 UUID, in lower case (the form every answer shows). */
  uuid(value: unknown, where: string): string {
    if (typeof value !== 'string' || !UUID_V4.test(value)) {
      this.fail(where, value === undefined ? 'is required' : 'must be a version-4 UUID');
      return typeof value === 'string' ? value.toLowerCase() : '';
    }
    return value.toLowerCase();
  }
}

const CATALOGUE_FIELDS = ['tests', 'kits'];
const TEST_FIELDS = ['id', 'name', 'description', 'sample_type', 'requires_physician_approval', 'kit_ids', 'panels'];
const PANEL_FIELDS = ['code', 'name', 'description', 'analytes'];
const ANALYTE_FIELDS = ['code', 'code_system', 'name', 'kind', 'unit', 'reference_low', 'reference_high', 'normal_value', 'abnormal_value'];
const KIT_FIELDS = ['id', 'sku', 'name', 'description', 'sample_type'];

/**
 * Checks a value (a parsed JSON document, or what a CSV file described) as a catalogue:
 * answers the catalogue, rebuilt from the fields it knows (ids in lower case, left-out
 * nullable fields null), or every problem found, each naming where it is.
 */
export function checkCatalogue(value: unknown): CatalogueCheck {
  const reading = new Reading();
  const fields = reading.object(value, 'catalogue', CATALOGUE_FIELDS);
  if (!fields) return { problems: reading.problems };
  const tests = reading.array(fields, 'tests', 'catalogue', 0, CATALOGUE_LIMITS.tests).map((test, i) => readTest(reading, test, `tests[${i}]`));
  const kits = reading.array(fields, 'kits', 'catalogue', 0, CATALOGUE_LIMITS.kits).map((kit, i) => readKit(reading, kit, `kits[${i}]`));
  checkIds(reading, tests, kits);
  checkKitsOfTests(reading, tests, kits);
  return reading.problems.length ? { problems: reading.problems } : { catalogue: { tests, kits } };
}

function readTest(reading: Reading, value: unknown, where: string): CatalogueTest {
  const fields = reading.object(value, where, TEST_FIELDS);
  // Not an object: said once, and it takes part in no other rule.
  if (!fields) return { id: '', name: '', description: null, sample_type: 'blood', requires_physician_approval: false, kit_ids: [], panels: [] };
  const id = reading.uuid(fields.id, `${where}.id`);
  const name = reading.text(fields, 'name', where, CATALOGUE_LIMITS.name);
  const description = reading.optionalText(fields, 'description', where, CATALOGUE_LIMITS.description);
  const sampleType = reading.oneOf(fields, 'sample_type', where, SAMPLE_TYPES);
  const approval = reading.boolean(fields, 'requires_physician_approval', where);
  const kitIds = reading.array(fields, 'kit_ids', where, 1, CATALOGUE_LIMITS.kitsPerTest).map((kitId, i) => reading.uuid(kitId, `${where}.kit_ids[${i}]`));
  const panels = reading.array(fields, 'panels', where, 1, CATALOGUE_LIMITS.panelsPerTest).map((panel, i) => readPanel(reading, panel, `${where}.panels[${i}]`));
  checkPanelNames(reading, panels, where);
  return { id, name, description, sample_type: sampleType, requires_physician_approval: approval, kit_ids: kitIds, panels };
}

function readPanel(reading: Reading, value: unknown, where: string): CataloguePanel {
  const fields = reading.object(value, where, PANEL_FIELDS);
  if (!fields) return { code: '', name: '', description: null, analytes: [] };
  const code = reading.text(fields, 'code', where, CATALOGUE_LIMITS.code);
  if (code.trim() && code.length <= CATALOGUE_LIMITS.code && !PANEL_CODE.test(code)) reading.fail(`${where}.code`, `must match ${PANEL_CODE.source}`);
  const name = reading.text(fields, 'name', where, CATALOGUE_LIMITS.name);
  const description = reading.optionalText(fields, 'description', where, CATALOGUE_LIMITS.description);
  const analytes = reading.array(fields, 'analytes', where, 1, CATALOGUE_LIMITS.analytesPerPanel).map((analyte, i) => readAnalyte(reading, analyte, `${where}.analytes[${i}]`));
  repeats(analytes.map((a) => a.code.toLowerCase())).forEach(([i, first]) => reading.fail(`${where}.analytes[${i}].code`, `repeats the code of ${where}.analytes[${first}]`));
  return { code, name, description, analytes };
}

function readAnalyte(reading: Reading, value: unknown, where: string): CatalogueAnalyte {
  const fields = reading.object(value, where, ANALYTE_FIELDS);
  if (!fields) return { code: '', code_system: null, name: '', kind: 'qualitative', unit: null, reference_low: null, reference_high: null, normal_value: null, abnormal_value: null };
  const analyte: CatalogueAnalyte = {
    code: reading.text(fields, 'code', where, CATALOGUE_LIMITS.code),
    code_system: reading.optionalText(fields, 'code_system', where, CATALOGUE_LIMITS.code),
    name: reading.text(fields, 'name', where, CATALOGUE_LIMITS.name),
    kind: reading.oneOf(fields, 'kind', where, ['quantitative', 'qualitative']),
    unit: reading.optionalText(fields, 'unit', where, CATALOGUE_LIMITS.unit),
    reference_low: reading.bound(fields, 'reference_low', where),
    reference_high: reading.bound(fields, 'reference_high', where),
    normal_value: reading.optionalText(fields, 'normal_value', where, CATALOGUE_LIMITS.answer),
    abnormal_value: reading.optionalText(fields, 'abnormal_value', where, CATALOGUE_LIMITS.answer),
  };
  if (analyte.code_system === 'LOINC') checkLoinc(reading, analyte.code, `${where}.code`);
  if (analyte.kind === 'quantitative') {
    if (analyte.unit === null) reading.fail(`${where}.unit`, 'is required for a quantitative analyte');
    const { reference_low: low, reference_high: high } = analyte;
    if (low !== null && high !== null && low > high) reading.fail(`${where}.reference_low`, `must not be above reference_high (${low} > ${high})`);
    for (const key of ['normal_value', 'abnormal_value'] as const) {
      if (analyte[key] !== null) reading.fail(`${where}.${key}`, 'must be null for a quantitative analyte');
    }
  } else if (analyte.kind === 'qualitative') {
    for (const key of ['normal_value', 'abnormal_value'] as const) {
      if (analyte[key] === null && fields[key] == null) reading.fail(`${where}.${key}`, 'is required for a qualitative analyte');
    }
    if (analyte.normal_value !== null && analyte.normal_value.toLowerCase() === analyte.abnormal_value?.toLowerCase()) {
      reading.fail(`${where}.abnormal_value`, 'must differ from normal_value');
    }
    for (const key of ['unit', 'reference_low', 'reference_high'] as const) {
      if (analyte[key] !== null) reading.fail(`${where}.${key}`, 'must be null for a qualitative analyte');
    }
  }
  return analyte;
}

function checkLoinc(reading: Reading, code: string, where: string): void {
  const parts = LOINC_CODE.exec(code);
  if (!parts) {
    if (code) reading.fail(where, 'must be a LOINC code (digits, a dash and the check digit, as 2093-3) when code_system is LOINC');
  } else if (loincCheckDigit(parts[1]!) !== Number(parts[2])) {
    reading.fail(where, `has a wrong check digit for a LOINC code (${parts[1]}-${loincCheckDigit(parts[1]!)} would be valid)`);
  }
}

/** An order names panels by code or by name, case-insensitively: within a test, each must name one panel. */
function checkPanelNames(reading: Reading, panels: CataloguePanel[], where: string): void {
  const codes = panels.map((p) => p.code.toLowerCase());
  const names = panels.map((p) => p.name.toLowerCase());
  for (const [i, first] of repeats(codes)) {
    reading.fail(`${where}.panels[${i}].code`, `repeats the code of ${where}.panels[${first}] (codes are compared case-insensitively)`);
  }
  for (const [i, first] of repeats(names)) {
    reading.fail(`${where}.panels[${i}].name`, `repeats the name of ${where}.panels[${first}] (an order names panels by code or by name)`);
  }
  names.forEach((name, i) => {
    const other = codes.indexOf(name);
    if (name && other !== -1 && other !== i) {
      reading.fail(`${where}.panels[${i}].name`, `is the code of ${where}.panels[${other}] (an order names panels by code or by name)`);
    }
  });
}

/** Ids are unique across tests and kits. */
function checkIds(reading: Reading, tests: CatalogueTest[], kits: CatalogueKit[]): void {
  const seen = new Map<string, string>();
  const records = [...tests.map((t, i) => ({ id: t.id, where: `tests[${i}]` })), ...kits.map((k, i) => ({ id: k.id, where: `kits[${i}]` }))];
  for (const { id, where } of records) {
    if (!UUID_V4.test(id)) continue;
    const first = seen.get(id);
    if (first) reading.fail(`${where}.id`, `repeats the id of ${first}`);
    else seen.set(id, where);
  }
  for (const [i, first] of repeats(kits.map((k) => k.sku))) reading.fail(`kits[${i}].sku`, `repeats the sku of kits[${first}]`);
}

/** Every kit a test lists is a kit of the catalogue that collects the test's sample, listed once. */
function checkKitsOfTests(reading: Reading, tests: CatalogueTest[], kits: CatalogueKit[]): void {
  const kitsById = new Map(kits.map((kit) => [kit.id, kit]));
  tests.forEach((test, t) => {
    const repeated = new Map(repeats(test.kit_ids));
    test.kit_ids.forEach((id, k) => {
      const where = `tests[${t}].kit_ids[${k}]`;
      const kit = kitsById.get(id);
      if (!UUID_V4.test(id)) return;
      if (repeated.has(k)) reading.fail(where, `repeats tests[${t}].kit_ids[${repeated.get(k)}]`);
      else if (!kit) reading.fail(where, 'names no kit of the catalogue');
      else if (SAMPLE_TYPES.includes(test.sample_type) && kit.sample_type !== test.sample_type) {
        reading.fail(where, `names kit ${kit.sku}, which collects ${kit.sample_type}, not ${test.sample_type} (the test's sample_type)`);
      }
    });
  });
}

function readKit(reading: Reading, value: unknown, where: string): CatalogueKit {
  const fields = reading.object(value, where, KIT_FIELDS);
  if (!fields) return { id: '', sku: '', name: '', description: null, sample_type: 'blood' };
  return {
    id: reading.uuid(fields.id, `${where}.id`),
    sku: reading.text(fields, 'sku', where, CATALOGUE_LIMITS.sku),
    name: reading.text(fields, 'name', where, CATALOGUE_LIMITS.name),
    description: reading.optionalText(fields, 'description', where, CATALOGUE_LIMITS.description),
    sample_type: reading.oneOf(fields, 'sample_type', where, SAMPLE_TYPES),
  };
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
