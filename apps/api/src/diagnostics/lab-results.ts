import { LifecycleError } from '../errors.js';
import type { CatalogueAnalyte, CataloguePanel } from './catalogue.js';

/** How a value compares with its normal range. */
export type Severity = 'normal' | 'low' | 'high' | 'critical' | 'abnormal';

/**
 * One result as the lab reports it (the operator's results file, the sandbox's simulated
 * lab): the panel and analyte by code, the value (a number for a quantitative analyte, a
 * word for a qualitative one), and optionally when it was measured, how severe the lab
 * judges it (else computed from the range) and the files attached to it.
 */
export interface LabResultInput {
  panel: string;
  code: string;
  value: string | number;
  measured_at?: string;
  severity?: Severity;
  media_ids?: string[];
}

/** A result as stored (sealed) with the order and answered by the results operations. */
export interface StoredResult {
  name: string;
  quantitative_value?: string;
  qualitative_value?: string;
  measured_at: string;
  panel_name: string;
  severity: Severity;
  panel_code: string;
  code: string;
  code_system: string | null;
  unit: string | null;
  reference_range: string | null;
  media_ids: string[];
}

const SEVERITIES: readonly Severity[] = ['normal', 'low', 'high', 'critical', 'abnormal'];

/** A finite number, or a decimal number written as text (`12`, `-0.5`): not blank, hex, exponent or `Infinity`. */
function isDecimal(value: string | number): boolean {
  return typeof value === 'number' ? Number.isFinite(value) : /^-?\d{1,12}(\.\d{1,6})?$/.test(value.trim());
}
const MEDIA_ID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-4[0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}$/;

/** The normal range as the results answer it: `40-60`, `>=40`, `<=200`, or the normal answer of a qualitative result. */
export function referenceRange(analyte: CatalogueAnalyte): string | null {
  if (analyte.kind === 'qualitative') return analyte.normal_value;
  const { reference_low: low, reference_high: high } = analyte;
  if (low !== null && high !== null) return `${low}-${high}`;
  if (low !== null) return `>=${low}`;
  if (high !== null) return `<=${high}`;
  return null;
}

/** How a value compares with the analyte's normal range (or normal answer). */
export function severityOf(analyte: CatalogueAnalyte, value: number | string): Severity {
  if (analyte.kind === 'qualitative') return String(value).toUpperCase() === analyte.normal_value?.toUpperCase() ? 'normal' : 'abnormal';
  const n = Number(value);
  if (analyte.reference_low !== null && n < analyte.reference_low) return 'low';
  if (analyte.reference_high !== null && n > analyte.reference_high) return 'high';
  return 'normal';
}

/**
 * The lab's report turned into the results an order keeps: each result must name a panel
 * the order runs and an analyte of that panel, once, with a value of the analyte's kind;
 * at least one result. A report that breaks a rule is refused whole (LifecycleError
 * INVALID, naming the result by its position), so an order never holds half a report.
 */
export function resultsOf(panels: readonly CataloguePanel[], report: readonly LabResultInput[], now: string): StoredResult[] {
  if (report.length === 0) throw new LifecycleError('INVALID', 'A report needs at least one result.');
  const seen = new Set<string>();
  return report.map((input, i) => {
    const where = `Result ${i + 1} (${input.panel}/${input.code})`;
    const panel = panels.find((p) => p.code === input.panel);
    if (!panel) throw new LifecycleError('INVALID', `${where}: the order runs no panel ${input.panel}.`);
    const analyte = panel.analytes.find((a) => a.code === input.code);
    if (!analyte) throw new LifecycleError('INVALID', `${where}: panel ${panel.code} reports no ${input.code}.`);
    if (seen.has(`${panel.code}/${analyte.code}`)) throw new LifecycleError('INVALID', `${where}: reported twice.`);
    seen.add(`${panel.code}/${analyte.code}`);
    const quantitative = analyte.kind === 'quantitative';
    if (quantitative ? !isDecimal(input.value) : typeof input.value !== 'string' || !input.value.trim()) {
      throw new LifecycleError('INVALID', `${where}: the value must be ${quantitative ? 'a number' : 'a word such as ' + (analyte.normal_value ?? 'NEGATIVE')}.`);
    }
    if (input.severity !== undefined && !SEVERITIES.includes(input.severity)) throw new LifecycleError('INVALID', `${where}: severity must be one of ${SEVERITIES.join(', ')}.`);
    if (input.measured_at !== undefined && Number.isNaN(Date.parse(input.measured_at))) throw new LifecycleError('INVALID', `${where}: measured_at must be a date-time.`);
    const media = input.media_ids ?? [];
    if (media.length > 20 || media.some((id) => !MEDIA_ID.test(id))) throw new LifecycleError('INVALID', `${where}: media_ids must be at most 20 version-4 UUIDs.`);
    return {
      name: analyte.name,
      ...(quantitative ? { quantitative_value: String(Number(input.value)) } : { qualitative_value: String(input.value).trim().toUpperCase() }),
      measured_at: input.measured_at ? new Date(input.measured_at).toISOString() : now,
      panel_name: panel.name,
      severity: input.severity ?? severityOf(analyte, input.value),
      panel_code: panel.code,
      code: analyte.code,
      code_system: analyte.code_system,
      unit: analyte.unit,
      reference_range: referenceRange(analyte),
      media_ids: media.map((id) => id.toLowerCase()),
    };
  });
}
