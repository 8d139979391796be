import { readCsvRecords } from './csv-records.js';
import type { LabResultInput, Severity } from './lab-results.js';

/** A report file that cannot be read: the problem, naming where. */
export class LabReportFileError extends Error {}

const COLUMNS = ['panel', 'code', 'value', 'measured_at', 'severity', 'media_ids'] as const;

/** One result from a JSON object, each field of its type (the rules of a report are lab-results.ts's). */
function resultOf(value: unknown, where: string): LabResultInput {
  const item = value as Record<string, unknown>;
  if (!item || typeof item !== 'object' || Array.isArray(item)) throw new LabReportFileError(`${where}: must be an object`);
  const text = (name: string) => {
    const v = item[name];
    if (v !== undefined && typeof v !== 'string') throw new LabReportFileError(`${where}.${name}: must be a string`);
    return v as string | undefined;
  };
  const unknown = Object.keys(item).filter((k) => !(COLUMNS as readonly string[]).includes(k));
  if (unknown.length) throw new LabReportFileError(`${where}.${unknown[0]}: is not a field of a result (${COLUMNS.join(', ')})`);
  const value_ = item.value;
  if (typeof value_ !== 'string' && typeof value_ !== 'number') throw new LabReportFileError(`${where}.value: must be a number or a string`);
  const media = item.media_ids;
  if (media !== undefined && (!Array.isArray(media) || media.some((m) => typeof m !== 'string'))) throw new LabReportFileError(`${where}.media_ids: must be a list of strings`);
  const panel = text('panel');
  const code = text('code');
  if (!panel || !code) throw new LabReportFileError(`${where}: panel and code are required`);
  const measured = text('measured_at');
  const severity = text('severity');
  return { panel, code, value: value_, ...(measured ? { measured_at: measured } : {}), ...(severity ? { severity: severity as Severity } : {}), ...(media ? { media_ids: media as string[] } : {}) };
}

/**
 * A lab's report from a file: JSON (an array of `{panel, code, value, measured_at?,
 * severity?, media_ids?}`, or `{results: [...]}`) or CSV with a header row naming those
 * columns (`media_ids` separated by spaces). The panel and analyte are codes of the
 * catalogue (`pnpm admin diagnostics-catalogue show`).
 */
export function readLabReport(text: string, fileName: string): LabResultInput[] {
  if (/\.json$/i.test(fileName)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new LabReportFileError(`${fileName} is not valid JSON: ${(error as Error).message}`);
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { results?: unknown })?.results;
    if (!Array.isArray(list)) throw new LabReportFileError(`${fileName}: must be an array of results, or {"results": [...]}`);
    return list.map((item, i) => resultOf(item, `results[${i}]`));
  }
  if (!/\.csv$/i.test(fileName)) throw new LabReportFileError(`${fileName}: a report is a .json or a .csv file`);
  const reading = readCsvRecords(text);
  if (reading.problem) throw new LabReportFileError(`${fileName} line ${reading.problem.line}: ${reading.problem.message}`);
  const [header, ...rows] = reading.records.filter((r) => r.fields.some((f) => f.trim()));
  if (!header) throw new LabReportFileError(`${fileName}: no header row`);
  const names = header.fields.map((f) => f.trim());
  const unknown = names.find((n) => !(COLUMNS as readonly string[]).includes(n));
  if (unknown !== undefined) throw new LabReportFileError(`${fileName} line ${header.line}: unknown column ${unknown} (the columns are ${COLUMNS.join(', ')})`);
  return rows.map((row) => {
    const cell = (name: string) => {
      const at = names.indexOf(name);
      const v = at < 0 ? '' : (row.fields[at] ?? '').trim();
      return v === '' ? undefined : v;
    };
    const media = cell('media_ids')?.split(/\s+/);
    return resultOf({ panel: cell('panel'), code: cell('code'), value: cell('value') ?? '', measured_at: cell('measured_at'), severity: cell('severity'), media_ids: media }, `line ${row.line}`);
  });
}
