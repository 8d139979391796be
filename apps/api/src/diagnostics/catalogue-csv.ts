import { checkCatalogue, type CatalogueCheck, type CatalogueProblem } from './catalogue-rules.js';
import { readCsvRecords, type CsvRecord } from './csv-records.js';

/**
 * A catalogue as one CSV file (RFC 4180, UTF-8), to fill in a spreadsheet. The first row
 * names the columns, in any order, every one of them:
 *
 *     record,id,name,description,sample_type,sku,requires_physician_approval,kit_ids,
 *     panel_code,panel_name,panel_description,analyte_code,analyte_code_system,analyte_name,
 *     kind,unit,reference_low,reference_high,normal_value,abnormal_value
 *
 * Each other row is one record, as its `record` column says:
 *
 * - `kit`: one kit: `id`, `name`, `description`, `sample_type` and `sku`; its other cells
 *   stay empty.
 * - `test`: one analyte of a test: the test (`id`, `name`, `description`, `sample_type`,
 *   `requires_physician_approval`, `kit_ids`), the panel that reports the analyte
 *   (`panel_code`, `panel_name`, `panel_description`) and the analyte (`analyte_code`,
 *   `analyte_code_system`, `analyte_name`, `kind`, `unit`, `reference_low`,
 *   `reference_high`, `normal_value`, `abnormal_value`); `sku` stays empty. A test has as
 *   many rows as analytes; its rows repeat the test's cells, which must agree (so must
 *   the panel's cells of rows of one panel). Tests, panels and analytes keep the order of
 *   their first row.
 *
 * Cells are trimmed; an empty cell is null (`description`, `unit`, a reference bound...).
 * `requires_physician_approval` is `true` or `false` (`yes`/`no`, `1`/`0`; any case);
 * `kit_ids` lists the test's kits separated by `;` (or spaces), its default kit first;
 * `kind` is `quantitative` (a `unit`, and `reference_low` and/or `reference_high`, numbers
 * with a `.` as decimal point) or `qualitative` (`normal_value` and `abnormal_value`, as
 * `NEGATIVE` and `POSITIVE`); `analyte_code_system` is `LOINC`, or empty for a lab's own
 * code. Rows whose cells are all empty are skipped. Then the catalogue is checked as a
 * JSON one is (`catalogue-rules.ts`); a problem names the place and the line of its row
 * (`tests[2].panels[0].code (line 7): ...`).
 */
export const CATALOGUE_CSV_COLUMNS = [
  'record',
  'id',
  'name',
  'description',
  'sample_type',
  'sku',
  'requires_physician_approval',
  'kit_ids',
  'panel_code',
  'panel_name',
  'panel_description',
  'analyte_code',
  'analyte_code_system',
  'analyte_name',
  'kind',
  'unit',
  'reference_low',
  'reference_high',
  'normal_value',
  'abnormal_value',
] as const;

type Column = (typeof CATALOGUE_CSV_COLUMNS)[number];
type Row = Record<Column, string> & { line: number };

const KIT_COLUMNS: readonly Column[] = ['record', 'id', 'name', 'description', 'sample_type', 'sku'];
const TEST_COLUMNS: readonly Column[] = ['id', 'name', 'description', 'sample_type', 'requires_physician_approval', 'kit_ids'];
const PANEL_COLUMNS: readonly Column[] = ['panel_name', 'panel_description'];
const BOOLEANS: Record<string, boolean> = { true: true, yes: true, '1': true, false: false, no: false, '0': false };
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A JSON-shaped test as the rows describe it, with the line of each part. */
interface TestRows {
  first: Row;
  panels: Map<string, { first: Row; analytes: Row[] }>;
}

export function readCatalogueCsv(text: string): CatalogueCheck {
  const reading = readCsvRecords(text.replace(/^\uFEFF/, ''));
  if (reading.problem) return { problems: [{ where: `line ${reading.problem.line}`, message: reading.problem.message }] };
  const nonBlank = reading.records.filter((r) => r.fields.some((f) => f.trim() !== ''));
  const [header, ...records] = nonBlank;
  if (!header) return { problems: [{ where: 'line 1', message: `the file is empty: the first row names the columns (${CATALOGUE_CSV_COLUMNS.join(',')})` }] };
  const problems: CatalogueProblem[] = [];
  const columns = readHeader(header, problems);
  if (!columns) return { problems };

  const rows = records.map((record): Row => {
    if (record.fields.length !== columns.length) {
      problems.push({ where: `line ${record.line}`, message: `has ${record.fields.length} fields, the header ${columns.length}` });
    }
    const row = { line: record.line } as Row;
    columns.forEach((column, i) => (row[column] = (record.fields[i] ?? '').trim()));
    return row;
  });
  if (problems.length) return { problems };

  const kits: Row[] = [];
  const tests = new Map<string, TestRows>();
  for (const row of rows) {
    const record = row.record.toLowerCase();
    if (record === 'kit') {
      refuseCells(row, CATALOGUE_CSV_COLUMNS.filter((c) => !KIT_COLUMNS.includes(c)), 'a kit row', problems);
      kits.push(row);
    } else if (record === 'test') {
      refuseCells(row, ['sku'], 'a test row', problems);
      addTestRow(tests, row, problems);
    } else {
      problems.push({ where: `line ${row.line}, record`, message: 'must be test (a row per analyte of a test) or kit' });
    }
  }
  if (problems.length) return { problems };

  const lines = new Map<string, number>();
  const catalogue = {
    tests: [...tests.values()].map((test, t) => {
      lines.set(`tests[${t}]`, test.first.line);
      return {
        ...testOf(test.first, problems),
        panels: [...test.panels.values()].map((panel, p) => {
          lines.set(`tests[${t}].panels[${p}]`, panel.first.line);
          return {
            code: panel.first.panel_code,
            name: panel.first.panel_name,
            description: panel.first.panel_description || null,
            analytes: panel.analytes.map((row, a) => {
              lines.set(`tests[${t}].panels[${p}].analytes[${a}]`, row.line);
              return analyteOf(row, problems);
            }),
          };
        }),
      };
    }),
    kits: kits.map((row, k) => {
      lines.set(`kits[${k}]`, row.line);
      return { id: row.id, sku: row.sku, name: row.name, description: row.description || null, sample_type: row.sample_type.toLowerCase() };
    }),
  };
  if (problems.length) return { problems };
  const checked = checkCatalogue(catalogue);
  if (checked.catalogue) return checked;
  return { problems: checked.problems.map((problem) => withLine(problem, lines)) };
}

function readHeader(header: CsvRecord, problems: CatalogueProblem[]): Column[] | undefined {
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const where = `line ${header.line}`;
  const unknown = names.filter((n) => !(CATALOGUE_CSV_COLUMNS as readonly string[]).includes(n));
  const missing = CATALOGUE_CSV_COLUMNS.filter((c) => !names.includes(c));
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  if (unknown.length) problems.push({ where, message: `unknown column(s) ${unknown.map((n) => JSON.stringify(n)).join(', ')}` });
  if (missing.length) problems.push({ where, message: `missing column(s) ${missing.join(', ')}` });
  if (repeated.length) problems.push({ where, message: `repeated column(s) ${[...new Set(repeated)].join(', ')}` });
  if (problems.length) {
    problems.push({ where, message: `the first row names the columns: ${CATALOGUE_CSV_COLUMNS.join(',')}` });
    return undefined;
  }
  return names as Column[];
}

function refuseCells(row: Row, columns: readonly Column[], what: string, problems: CatalogueProblem[]): void {
  for (const column of columns) {
    if (row[column] !== '') problems.push({ where: `line ${row.line}, ${column}`, message: `must be empty in ${what}` });
  }
}

/** Files the row under its test and panel, checking it agrees with the first row of each. */
function addTestRow(tests: Map<string, TestRows>, row: Row, problems: CatalogueProblem[]): void {
  const key = row.id.toLowerCase();
  let test = tests.get(key);
  if (!test) tests.set(key, (test = { first: row, panels: new Map() }));
  for (const column of TEST_COLUMNS) {
    if (normalized(column, row[column]) !== normalized(column, test.first[column])) {
      problems.push({ where: `line ${row.line}, ${column}`, message: `differs from line ${test.first.line}, a row of the same test (the rows of a test must agree on its cells)` });
    }
  }
  let panel = test.panels.get(row.panel_code);
  if (!panel) test.panels.set(row.panel_code, (panel = { first: row, analytes: [] }));
  for (const column of PANEL_COLUMNS) {
    if (row[column] !== panel.first[column]) {
      problems.push({ where: `line ${row.line}, ${column}`, message: `differs from line ${panel.first.line}, a row of the same panel (the rows of a panel must agree on its cells)` });
    }
  }
  panel.analytes.push(row);
}

/** A cell as compared between the rows of a test: `TRUE` and `yes` agree, and so do `a;b` and `a b`. */
function normalized(column: Column, value: string): string {
  if (column === 'requires_physician_approval') return String(BOOLEANS[value.toLowerCase()] ?? value);
  if (column === 'kit_ids') return kitIds(value).join(';');
  if (column === 'id' || column === 'sample_type') return value.toLowerCase();
  return value;
}

function kitIds(cell: string): string[] {
  return cell.toLowerCase().split(/[;,\s]+/).filter(Boolean);
}

function testOf(row: Row, problems: CatalogueProblem[]) {
  const approval = BOOLEANS[row.requires_physician_approval.toLowerCase()];
  if (approval === undefined) problems.push({ where: `line ${row.line}, requires_physician_approval`, message: 'must be true or false' });
  return { id: row.id, name: row.name, description: row.description || null, sample_type: row.sample_type.toLowerCase(), requires_physician_approval: approval, kit_ids: kitIds(row.kit_ids) };
}

function analyteOf(row: Row, problems: CatalogueProblem[]) {
  const bound = (column: 'reference_low' | 'reference_high') => {
    if (row[column] === '') return null;
    if (!NUMBER.test(row[column])) problems.push({ where: `line ${row.line}, ${column}`, message: 'must be a number (with a . as decimal point) or empty' });
    return Number(row[column]);
  };
  return {
    code: row.analyte_code,
    code_system: row.analyte_code_system || null,
    name: row.analyte_name,
    kind: row.kind.toLowerCase(),
    unit: row.unit || null,
    reference_low: bound('reference_low'),
    reference_high: bound('reference_high'),
    normal_value: row.normal_value || null,
    abnormal_value: row.abnormal_value || null,
  };
}

/** The problem of a checked catalogue, with the line of the row its place came from. */
function withLine(problem: CatalogueProblem, lines: Map<string, number>): CatalogueProblem {
  for (let place = problem.where; ; ) {
    const line = lines.get(place);
    if (line !== undefined) return { where: `${problem.where} (line ${line})`, message: problem.message };
    const parent = place.replace(/(\.[a-z_]+|\[\d+\])$/, '');
    if (parent === place) return problem;
    place = parent;
  }
}
