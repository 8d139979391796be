import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDiagnosticsCatalogue } from '../src/admin/diagnostics-catalogue-commands.js';
import type { DiagnosticCatalogue } from '../src/diagnostics/catalogue.js';
import { CATALOGUE_CSV_COLUMNS } from '../src/diagnostics/catalogue-csv.js';
import { readCatalogueFile } from '../src/diagnostics/catalogue-files.js';
import { CatalogueRepository } from '../src/diagnostics/catalogue-repository.js';
import { checkCatalogue, loincCheckDigit } from '../src/diagnostics/catalogue-rules.js';
import { describeProblem, InvalidDocumentError } from '../src/db/environment-documents.js';
import { DiagnosticCatalogues } from '../src/diagnostics/catalogue-service.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLE_FILE = join(apiRoot, 'reference-data/diagnostics-catalogue.json');
const SAMPLE_CSV_FILE = join(apiRoot, 'reference-data/diagnostics-catalogue.csv');
const sampleText = readFileSync(SAMPLE_FILE, 'utf8');
const sample = (): DiagnosticCatalogue => JSON.parse(sampleText);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LIPID = '7c923d60-0dc5-4aa8-aeea-aa9ce52b8f1a';
const THYROID = '8daf16d9-65d1-45c6-8f37-fabefbaf42dc';
const FINGER_PRICK = '3319b27c-5213-40e4-8524-ee46eeff313b';
const UPPER_ARM = '64e62ad5-52f8-443e-9123-31ff7b3f5089';
const URINE_KIT = 'c1e5db21-8af6-4249-a449-694974163412';

/** The problems of a catalogue, described (`where: message`). */
function problemsOf(value: unknown): string[] {
  const checked = checkCatalogue(value);
  return checked.problems?.map(describeProblem) ?? [];
}

function csvProblems(text: string): string[] {
  return readCatalogueFile(text, 'catalogue.csv').problems?.map(describeProblem) ?? [];
}

/** A small catalogue in CSV: one kit and a test of two panels (lines 2 to 5). */
const csvHeader = CATALOGUE_CSV_COLUMNS.join(',');
const kitRow = `kit,${URINE_KIT},Urine kit,"A cup, a tube",urine,KIT-U,,,,,,,,,,,,,,`;
const testRow = (panel: string, analyte: string, cells: { name?: string; approval?: string; panelName?: string } = {}) =>
  `test,${LIPID},${cells.name ?? 'STI panel'},,urine,,${cells.approval ?? 'true'},${URINE_KIT},${panel},${cells.panelName ?? panel},,${analyte},,${analyte} rRNA,qualitative,,,,NEGATIVE,POSITIVE`;
const smallCsv = (...rows: string[]) => [csvHeader, kitRow, ...rows].join('\r\n');

describe('the shipped sample catalogue', () => {
  it('follows every rule, with at least 6 tests, 2 of them needing a physician, and a test served by 2 kits', () => {
    const checked = readCatalogueFile(sampleText, SAMPLE_FILE);
    expect(checked.problems).toBeUndefined();
    const catalogue = checked.catalogue!;
    expect(catalogue).toEqual(sample());
    expect(catalogue.tests.length).toBeGreaterThanOrEqual(6);
    expect(catalogue.tests.filter((t) => t.requires_physician_approval).length).toBeGreaterThanOrEqual(2);
    expect(catalogue.tests.some((t) => t.kit_ids.length === 2)).toBe(true);
    // A kit that serves several tests.
    expect(catalogue.tests.filter((t) => t.kit_ids.includes(FINGER_PRICK)).length).toBeGreaterThan(1);
    for (const { id } of [...catalogue.tests, ...catalogue.kits]) expect(id).toMatch(UUID_V4);
    expect(new Set(catalogue.tests.map((t) => t.sample_type))).toEqual(new Set(['blood', 'swab', 'urine', 'stool']));
  });

  it('codes its analytes in LOINC, with units and reference ranges, and qualitative answers', () => {
    const analytes = sample().tests.flatMap((t) => t.panels.flatMap((p) => p.analytes));
    const byCode = new Map(analytes.map((a) => [a.code, a]));
    expect(byCode.get('2093-3')).toMatchObject({ code_system: 'LOINC', unit: 'mg/dL', reference_low: null, reference_high: 200 });
    expect(byCode.get('2085-9')).toMatchObject({ unit: 'mg/dL', reference_low: 40, reference_high: null });
    expect(byCode.get('4548-4')).toMatchObject({ unit: '%', reference_low: 4, reference_high: 5.6 });
    expect(byCode.get('3016-3')).toMatchObject({ unit: 'mIU/L', reference_low: 0.4, reference_high: 4 });
    expect(byCode.get('62292-8')).toMatchObject({ unit: 'ng/mL', reference_low: 30, reference_high: 100 });
    expect(byCode.get('94500-6')).toMatchObject({ kind: 'qualitative', normal_value: 'NOT DETECTED', abnormal_value: 'DETECTED' });
    expect(byCode.get('29771-3')).toMatchObject({ kind: 'qualitative', normal_value: 'NEGATIVE', abnormal_value: 'POSITIVE' });
    for (const analyte of analytes.filter((a) => a.code_system === 'LOINC')) {
      const [number, check] = analyte.code.split('-');
      expect(loincCheckDigit(number!), analyte.code).toBe(Number(check));
    }
  });
});

describe('catalogue files', () => {
  it('read the same catalogue from JSON and from CSV', () => {
    const fromCsv = readCatalogueFile(readFileSync(SAMPLE_CSV_FILE, 'utf8'), 'catalogue.CSV');
    expect(fromCsv.problems).toBeUndefined();
    expect(fromCsv.catalogue).toEqual(readCatalogueFile(sampleText, 'catalogue.json').catalogue);
  });

  it('read CSV as RFC 4180 writes it: quoted commas, quotes and line breaks, CRLF or LF, a BOM, blank rows', () => {
    const text =
      `\uFEFF${csvHeader}\n` +
      `kit,${URINE_KIT},"Urine kit, ""large""","A cup,\r\na tube",urine,KIT-U,,,,,,,,,,,,,,\r\n` +
      ',,,,,,,,,,,,,,,,,,,\n' +
      `test,${LIPID.toUpperCase()}, STI panel ,,urine,,Yes,${URINE_KIT},chlamydia,Chlamydia,,43304-5,LOINC,Chlamydia trachomatis rRNA,Qualitative,,,,NEGATIVE,POSITIVE\n`;
    const read = readCatalogueFile(text, 'sti.csv');
    expect(read.problems).toBeUndefined();
    expect(read.catalogue).toEqual({
      tests: [
        {
          id: LIPID,
          name: 'STI panel',
          description: null,
          sample_type: 'urine',
          requires_physician_approval: true,
          kit_ids: [URINE_KIT],
          panels: [
            {
              code: 'chlamydia',
              name: 'Chlamydia',
              description: null,
              analytes: [
                {
                  code: '43304-5',
                  code_system: 'LOINC',
                  name: 'Chlamydia trachomatis rRNA',
                  kind: 'qualitative',
                  unit: null,
                  reference_low: null,
                  reference_high: null,
                  normal_value: 'NEGATIVE',
                  abnormal_value: 'POSITIVE',
                },
              ],
            },
          ],
        },
      ],
      kits: [{ id: URINE_KIT, sku: 'KIT-U', name: 'Urine kit, "large"', description: 'A cup,\r\na tube', sample_type: 'urine' }],
    });
  });

  it('refuse a file that is neither .json nor .csv, and JSON that does not parse', () => {
    expect(readCatalogueFile(sampleText, 'catalogue.xlsx').problems?.map(describeProblem)).toEqual([
      'catalogue.xlsx: must be a .json or a .csv file (the extension tells how to read it)',
    ]);
    expect(readCatalogueFile('{"tests": [', 'catalogue.json').problems?.map(describeProblem)).toEqual([expect.stringMatching(/^JSON: cannot be parsed: /)]);
  });
});

type Mutation = (c: DiagnosticCatalogue) => unknown;
const edit =
  (change: (c: DiagnosticCatalogue) => void): Mutation =>
  (c) => {
    change(c);
    return c;
  };

describe('a catalogue that breaks a rule is refused, each problem naming its place', () => {
  it.each<[string, Mutation, string]>([
    ['a test id that is not a UUID', edit((c) => (c.tests[0]!.id = 'lipid-panel')), 'tests[0].id: must be a version-4 UUID'],
    ['a kit id of UUID version 1', edit((c) => (c.kits[2]!.id = 'c232ab00-9414-11ec-b3c8-9e6bdeced846')), 'kits[2].id: must be a version-4 UUID'],
    ['an id used twice', edit((c) => (c.tests[3]!.id = c.kits[1]!.id)), `kits[1].id: repeats the id of tests[3]`],
    ['a kit of another sample type', edit((c) => (c.tests[0]!.kit_ids = [URINE_KIT])), "tests[0].kit_ids[0]: names kit KIT-URN-01, which collects urine, not blood (the test's sample_type)"],
    ['an unknown kit id', edit((c) => c.tests[1]!.kit_ids.push('0b9a2f4e-3c1d-4e5f-8a6b-7c8d9e0f1a2b')), 'tests[1].kit_ids[1]: names no kit of the catalogue'],
    ['a kit listed twice', edit((c) => c.tests[1]!.kit_ids.push(FINGER_PRICK)), 'tests[1].kit_ids[1]: repeats tests[1].kit_ids[0]'],
    ['a test without a kit', edit((c) => (c.tests[1]!.kit_ids = [])), 'tests[1].kit_ids: must list at least 1'],
    ['a test without a panel', edit((c) => (c.tests[1]!.panels = [])), 'tests[1].panels: must list at least 1'],
    ['a panel code used twice in a test', edit((c) => (c.tests[2]!.panels[1]!.code = 'TSH')), 'tests[2].panels[1].code: repeats the code of tests[2].panels[0] (codes are compared case-insensitively)'],
    ['a panel code with a space', edit((c) => (c.tests[0]!.panels[0]!.code = 'lipid panel')), 'tests[0].panels[0].code: must match ^[A-Za-z0-9_.-]{1,64}$'],
    ['a panel named as another is coded', edit((c) => (c.tests[2]!.panels[1]!.name = 'tsh')), 'tests[2].panels[1].name: is the code of tests[2].panels[0] (an order names panels by code or by name)'],
    ['an analyte code used twice in a panel', edit((c) => (c.tests[0]!.panels[0]!.analytes[3]!.code = '2093-3')), 'tests[0].panels[0].analytes[3].code: repeats the code of tests[0].panels[0].analytes[0]'],
    ['a quantitative analyte without a unit', edit((c) => (c.tests[1]!.panels[0]!.analytes[0]!.unit = null)), 'tests[1].panels[0].analytes[0].unit: is required for a quantitative analyte'],
    ['a low bound above the high one', edit((c) => (c.tests[3]!.panels[0]!.analytes[0]!.reference_low = 150)), 'tests[3].panels[0].analytes[0].reference_low: must not be above reference_high (150 > 100)'],
    ['a qualitative analyte without its normal value', edit((c) => (c.tests[4]!.panels[0]!.analytes[0]!.normal_value = null)), 'tests[4].panels[0].analytes[0].normal_value: is required for a qualitative analyte'],
    ['a qualitative analyte with a unit', edit((c) => (c.tests[6]!.panels[0]!.analytes[0]!.unit = 'mg/dL')), 'tests[6].panels[0].analytes[0].unit: must be null for a qualitative analyte'],
    ['a LOINC code with a wrong check digit', edit((c) => (c.tests[0]!.panels[0]!.analytes[0]!.code = '2093-4')), 'tests[0].panels[0].analytes[0].code: has a wrong check digit for a LOINC code (2093-3 would be valid)'],
    ['an empty test name', edit((c) => (c.tests[5]!.name = '  ')), 'tests[5].name: must not be empty'],
    ['a test name of 256 characters', edit((c) => (c.tests[5]!.name = 'x'.repeat(256))), 'tests[5].name: must be at most 255 characters'],
    ['a sku of 65 characters', edit((c) => (c.kits[0]!.sku = 'S'.repeat(65))), 'kits[0].sku: must be at most 64 characters'],
    ['a sku used twice', edit((c) => (c.kits[1]!.sku = c.kits[0]!.sku)), 'kits[1].sku: repeats the sku of kits[0]'],
    ['an unknown sample type', edit((c) => ((c.kits[4] as { sample_type: string }).sample_type = 'hair')), 'kits[4].sample_type: must be one of blood, saliva, urine, stool, swab'],
    ['a field the catalogue does not know', edit((c) => Object.assign(c.tests[0]!, { price: 49 })), 'tests[0].price: is not allowed'],
    ['an approval that is not a boolean', edit((c) => Object.assign(c.tests[0]!, { requires_physician_approval: 'yes' })), 'tests[0].requires_physician_approval: must be true or false'],
    ['501 tests', (c) => ({ tests: Array.from({ length: 501 }, () => c.tests[0]), kits: c.kits }), 'catalogue.tests: must list at most 500 (it lists 501)'],
    ['something else than a catalogue', () => [], 'catalogue: must be an object'],
    ['a test that is not an object', (c) => ({ tests: ['Lipid panel'], kits: c.kits }), 'tests[0]: must be an object'],
  ])('%s', (_, mutate, problem) => {
    expect(problemsOf(mutate(sample()))).toContain(problem);
  });

  it('says a test that is not an object once', () => {
    expect(problemsOf({ tests: [42], kits: [] })).toEqual(['tests[0]: must be an object']);
  });
});

describe('a CSV catalogue that breaks a rule is refused, each problem naming its line', () => {
  it('reads the small catalogue these cases break', () => {
    expect(csvProblems(smallCsv(testRow('chlamydia', 'CT'), testRow('gonorrhea', 'NG')))).toEqual([]);
  });

  it.each<[string, string, string]>([
    ['rows of a test that disagree on its name', smallCsv(testRow('chlamydia', 'CT'), testRow('gonorrhea', 'NG', { name: 'STI' })), 'line 4, name: differs from line 3, a row of the same test (the rows of a test must agree on its cells)'],
    ['rows of a test that disagree on its approval', smallCsv(testRow('chlamydia', 'CT'), testRow('gonorrhea', 'NG', { approval: 'no' })), 'line 4, requires_physician_approval: differs from line 3, a row of the same test (the rows of a test must agree on its cells)'],
    ['rows of a panel that disagree on its name', smallCsv(testRow('chlamydia', 'CT'), testRow('chlamydia', 'CT2', { panelName: 'CT' })), 'line 4, panel_name: differs from line 3, a row of the same panel (the rows of a panel must agree on its cells)'],
    ['text after a closing quote', smallCsv(testRow('chlamydia', 'CT').replace('STI panel', '"STI" panel')), 'line 3: a closing quote must be followed by a comma or the end of the line (a quote inside a quoted field is doubled: "")'],
    ['a quote inside an unquoted field', smallCsv(testRow('chlamydia', 'CT').replace('STI panel', 'STI "panel"')), 'line 3: a quote inside a field that does not start with one (quote the whole field and double the quote: "a ""b"" c")'],
    ['a quote never closed', smallCsv(testRow('chlamydia', 'CT'), testRow('gonorrhea', 'NG').replace('STI panel', '"STI panel')), 'line 4: a quoted field opened on this line is never closed'],
    ['a row with a field too many', smallCsv(`${testRow('chlamydia', 'CT')},extra`), 'line 3: has 21 fields, the header 20'],
    ['an unknown record', smallCsv(testRow('chlamydia', 'CT').replace(/^test/, 'panel')), 'line 3, record: must be test (a row per analyte of a test) or kit'],
    ['a kit row with a test cell', smallCsv(testRow('chlamydia', 'CT')).replace('KIT-U,,', 'KIT-U,true,'), 'line 2, requires_physician_approval: must be empty in a kit row'],
    ['a bound that is not a number', smallCsv(testRow('chlamydia', 'CT').replace('qualitative,,,', 'qualitative,,1;5,')), 'line 3, reference_low: must be a number (with a . as decimal point) or empty'],
    ['a missing column', smallCsv(testRow('chlamydia', 'CT')).replace(',abnormal_value', ''), 'line 1: missing column(s) abnormal_value'],
    ['a rule broken on a row', smallCsv(testRow('chlamydia', 'CT'), testRow('gono rrhea', 'NG')), 'tests[0].panels[1].code (line 4): must match ^[A-Za-z0-9_.-]{1,64}$'],
    ['an unknown kit of a test', smallCsv(testRow('chlamydia', 'CT').replaceAll(`,${URINE_KIT},chlamydia`, `,${UPPER_ARM},chlamydia`)), 'tests[0].kit_ids[0] (line 3): names no kit of the catalogue'],
    ['a rule broken by a kit row', smallCsv(testRow('chlamydia', 'CT')).replace('KIT-U', ''), 'kits[0].sku (line 2): must not be empty'],
  ])('%s', (_, text, problem) => {
    expect(csvProblems(text)).toContain(problem);
  });
});

describe('the catalogues of the environments', () => {
  let database: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'diagnostics-catalogue-'));
  const newCatalogues = (cacheMs?: number, sampleFile = SAMPLE_FILE) => new DiagnosticCatalogues(new CatalogueRepository(database.handle.db), sampleFile, cacheMs);
  const lipidOnly = () => {
    const c = sample();
    return JSON.stringify({ tests: [c.tests[0]], kits: c.kits.slice(0, 2) });
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  // Each story starts with nothing imported.
  beforeEach(async () => {
    await database.handle.db.deleteFrom('diagnostic_catalogues').execute();
  });
  afterAll(async () => {
    await database?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the sandbox answers the shipped sample and production an empty catalogue until one is imported', async () => {
    const fresh = newCatalogues();
    expect(await fresh.of('sandbox')).toEqual(sample());
    expect(await fresh.origin('sandbox')).toEqual({ environment: 'sandbox', source: 'shipped sample', imported_at: null });
    expect(await fresh.of('production')).toEqual({ tests: [], kits: [] });
    expect(await fresh.origin('production')).toEqual({ environment: 'production', source: 'none', imported_at: null });
  });

  it('an import replaces the environment catalogue, answers its counts, and leaves the other environment alone', async () => {
    const instance = newCatalogues();
    expect(await instance.import('production', lipidOnly(), '/somewhere/lipids.json')).toEqual({ tests: 1, panels: 1, analytes: 5, kits: 2 });
    expect((await instance.of('production')).tests.map((t) => t.id)).toEqual([LIPID]);
    expect(await instance.origin('production')).toEqual({ environment: 'production', source: 'lipids.json', imported_at: expect.any(String) });
    expect(await instance.of('sandbox')).toEqual(sample());

    // A second import replaces the first whole.
    expect(await instance.import('production', readFileSync(SAMPLE_CSV_FILE, 'utf8'), 'full.csv')).toEqual({ tests: 8, panels: 11, analytes: 19, kits: 5 });
    expect(await instance.of('production')).toEqual(sample());
    const rows = await database.handle.db.selectFrom('diagnostic_catalogues').selectAll().execute();
    expect(rows.map((r) => [r.environment, r.source])).toEqual([['production', 'full.csv']]);
    expect(await newCatalogues().of('production')).toEqual(sample());
  });

  it('an invalid import throws every problem and stores nothing', async () => {
    const instance = newCatalogues();
    const before = await instance.of('sandbox');
    const broken = sample();
    broken.tests[0]!.kit_ids = [URINE_KIT];
    broken.tests[1]!.panels[0]!.analytes[0]!.unit = null;
    const refused = await instance.import('sandbox', JSON.stringify(broken), 'broken.json').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidDocumentError);
    expect((refused as InvalidDocumentError).problems).toEqual([
      'tests[1].panels[0].analytes[0].unit: is required for a quantitative analyte',
      "tests[0].kit_ids[0]: names kit KIT-URN-01, which collects urine, not blood (the test's sample_type)",
    ]);
    await expect(instance.import('sandbox', sampleText, 'catalogue.txt')).rejects.toBeInstanceOf(InvalidDocumentError);
    expect(await database.handle.db.selectFrom('diagnostic_catalogues').select('environment').where('environment', '=', 'sandbox').execute()).toEqual([]);
    expect(await instance.of('sandbox')).toEqual(before);
  });

  it('an import through one instance is seen by another on the same database within its cache time', async () => {
    const reader = newCatalogues(300);
    const writer = newCatalogues(300);
    expect((await reader.of('sandbox')).tests).toHaveLength(8);
    await writer.import('sandbox', lipidOnly(), 'lipids.json');
    expect((await writer.of('sandbox')).tests).toHaveLength(1);
    // Still the cached catalogue...
    expect((await reader.of('sandbox')).tests).toHaveLength(8);
    await new Promise((resolve) => setTimeout(resolve, 350));
    // ...until the cache time has passed.
    expect((await reader.of('sandbox')).tests).toHaveLength(1);
    expect((await reader.origin('sandbox')).source).toBe('lipids.json');
  });

  it('a broken sample file fails with the file and its problems named, until it is fixed', async () => {
    const file = join(dir, 'sample.json');
    const broken = sample();
    broken.kits[0]!.id = 'not-a-uuid';
    writeFileSync(file, JSON.stringify(broken));
    const instance = newCatalogues(0, file);
    const error = (await instance.of('sandbox').catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`DIAGNOSTICS_SANDBOX_CATALOGUE_FILE, ${file}) is not a valid diagnostics catalogue`);
    expect(error.message).toContain('kits[0].id: must be a version-4 UUID');
    await expect(newCatalogues(0, join(dir, 'missing.json')).of('sandbox')).rejects.toThrow(/missing\.json\) cannot be read/);
    // Production never reads it.
    expect(await instance.of('production')).toEqual({ tests: [], kits: [] });
    writeFileSync(file, sampleText);
    expect(await instance.of('sandbox')).toEqual(sample());
  });

  describe('lookups for orders', () => {
    let sandbox: DiagnosticCatalogues;
    beforeAll(() => {
      sandbox = newCatalogues();
    });

    it('find tests and kits by id, in any case, and the kits of a test and the tests of a kit', async () => {
      const index = await newCatalogues().index('sandbox');
      expect(index.test(LIPID.toUpperCase())?.name).toBe('Lipid panel');
      expect(index.kit(UPPER_ARM)?.sku).toBe('KIT-BLD-UA-01');
      expect(index.kitsOfTest(LIPID).map((k) => k.id)).toEqual([FINGER_PRICK, UPPER_ARM]);
      expect(index.testsOfKit(UPPER_ARM).map((t) => t.name)).toEqual(['Lipid panel', 'Thyroid function', 'Heart health']);
      expect(index.test('00000000-0000-4000-8000-000000000000')).toBeUndefined();
      expect(index.kitsOfTest('00000000-0000-4000-8000-000000000000')).toEqual([]);
    });

    it('select the test, its default kit and all its panels, or the kit and panels an order names', async () => {
      const all = await sandbox.select('sandbox', { test_id: THYROID });
      expect(all.selection?.kit.id).toBe(FINGER_PRICK);
      expect(all.selection?.panels.map((p) => p.code)).toEqual(['tsh', 'free_t4']);
      const named = await sandbox.select('sandbox', { test_id: THYROID, kit_id: UPPER_ARM.toUpperCase(), panels: ['FREE THYROXINE', 'Free_T4'] });
      expect(named.selection?.kit.sku).toBe('KIT-BLD-UA-01');
      expect(named.selection?.panels.map((p) => p.code)).toEqual(['free_t4']);
    });

    it('refuse an unknown test, a kit that does not serve the test, and a panel that is not the test', async () => {
      expect((await sandbox.select('sandbox', { test_id: URINE_KIT })).problems).toEqual([{ key: 'test_id', message: 'is not a test of the catalogue' }]);
      expect((await sandbox.select('sandbox', { test_id: THYROID, kit_id: URINE_KIT, panels: ['tsh', 'cortisol'] })).problems).toEqual([
        { key: 'kit_id', message: `is not a kit of the test (its kits: ${FINGER_PRICK}, ${UPPER_ARM})` },
        { key: 'panels.1', message: 'is not a panel of the test (its panels: tsh, free_t4)' },
      ]);
    });

    it('share a frozen catalogue', async () => {
      const catalogue = await sandbox.of('sandbox');
      expect(Object.isFrozen(catalogue.tests[0]!.panels)).toBe(true);
      expect(() => (catalogue.tests as unknown[]).pop()).toThrow(TypeError);
    });
  });

  describe('pnpm admin diagnostics-catalogue', () => {
    it('import prints the counts, and show the catalogue in short', async () => {
      const instance = newCatalogues();
      expect(await runDiagnosticsCatalogue(instance, ['import', '--environment', 'production', '--file', SAMPLE_CSV_FILE])).toEqual({
        environment: 'production',
        tests: 8,
        panels: 11,
        analytes: 19,
        kits: 5,
      });
      const shown = (await runDiagnosticsCatalogue(instance, ['show', '--environment', 'production'])) as Record<string, unknown>;
      expect(shown).toMatchObject({ environment: 'production', source: 'diagnostics-catalogue.csv', imported_at: expect.any(String) });
      expect((shown.tests as unknown[])[0]).toEqual({ id: LIPID, name: 'Lipid panel', panels: ['lipid_panel'], kit_ids: [FINGER_PRICK, UPPER_ARM] });
      expect((shown.kits as unknown[])[0]).toEqual({ id: FINGER_PRICK, sku: 'KIT-BLD-FP-01' });
    });

    it.each([
      ['an unknown environment', ['show', '--environment', 'staging'], '--environment must be sandbox or production'],
      ['an unknown action', ['export', '--environment', 'sandbox'], 'the action must be one of import, show'],
      ['an import without a file', ['import', '--environment', 'sandbox'], '--file is required'],
      ['a file that cannot be read', ['import', '--environment', 'sandbox', '--file', '/nowhere/catalogue.json'], '--file /nowhere/catalogue.json cannot be read'],
    ])('refuses %s', async (_, args, message) => {
      await expect(runDiagnosticsCatalogue(newCatalogues(), args)).rejects.toMatchObject({ code: 2, message: expect.stringContaining(message) });
    });
  });

  describe('pnpm admin diagnostics-catalogue, as a process', () => {
    const admin = (args: string[]) => run(process.execPath, ['bin/admin.mjs', 'diagnostics-catalogue', ...args], { cwd: apiRoot, env: { ...process.env, DATABASE_URL: database.url } });

    it('imports a file, shows it, and refuses an invalid one with each problem on stderr, storing nothing', async () => {
      const imported = JSON.parse((await admin(['import', '--environment', 'sandbox', '--file', SAMPLE_CSV_FILE])).stdout);
      expect(imported).toEqual({ environment: 'sandbox', tests: 8, panels: 11, analytes: 19, kits: 5 });
      const shown = JSON.parse((await admin(['show', '--environment', 'sandbox'])).stdout);
      expect(shown).toMatchObject({ environment: 'sandbox', source: 'diagnostics-catalogue.csv', imported_at: expect.any(String) });
      expect(shown.tests).toHaveLength(8);
      expect(shown.kits).toContainEqual({ id: URINE_KIT, sku: 'KIT-URN-01' });

      const file = join(dir, 'broken.json');
      const broken = sample();
      broken.tests[0]!.kit_ids = [URINE_KIT];
      broken.tests[2]!.panels[1]!.code = 'tsh';
      writeFileSync(file, JSON.stringify({ tests: broken.tests, kits: broken.kits }));
      const refused = (await admin(['import', '--environment', 'sandbox', '--file', file]).catch((error: unknown) => error)) as { code: number; stderr: string };
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("\ntests[0].kit_ids[0]: names kit KIT-URN-01, which collects urine, not blood (the test's sample_type)\n");
      expect(refused.stderr).toContain('\ntests[2].panels[1].code: repeats the code of tests[2].panels[0] (codes are compared case-insensitively)\n');
      expect(JSON.parse((await admin(['show', '--environment', 'sandbox'])).stdout).source).toBe('diagnostics-catalogue.csv');
    });
  });
});
