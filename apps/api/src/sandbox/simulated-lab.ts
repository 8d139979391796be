import type { CatalogueAnalyte, CataloguePanel } from '../diagnostics/catalogue.js';
import type { LabResultInput } from '../diagnostics/lab-results.js';
import { randomToken } from '../tokens.js';

/** A value of the analyte inside its normal range, or outside it when `abnormal`. */
function valueOf(analyte: CatalogueAnalyte, abnormal: boolean): string | number {
  if (analyte.kind === 'qualitative') return (abnormal ? analyte.abnormal_value : analyte.normal_value) ?? 'NEGATIVE';
  const { reference_low: low, reference_high: high } = analyte;
  const round = (n: number) => Math.round(n * 10) / 10;
  if (abnormal) return high !== null ? round(high * 1.5 + 1) : round((low ?? 1) * 0.5);
  if (low !== null && high !== null) return round(low + (high - low) * (0.25 + Math.random() / 2));
  if (high !== null) return round(high * 0.7);
  if (low !== null) return round(low * 1.3 + 1);
  return 1;
}

/** The sandbox lab's report of an order: every analyte of every panel it runs, normal unless told otherwise. */
export function simulatedReport(panels: readonly CataloguePanel[], abnormal: boolean): LabResultInput[] {
  return panels.flatMap((panel) => panel.analytes.map((analyte) => ({ panel: panel.code, code: analyte.code, value: valueOf(analyte, abnormal) })));
}

/** A carrier's tracking number as the sandbox's carrier makes them up (22 digits, as USPS's). */
export function simulatedTrackingNumber(): string {
  return `9400${Array.from({ length: 18 }, () => Math.floor(Math.random() * 10)).join('')}`;
}

/** The serial of a kit the sandbox ships. */
export function simulatedKitSerial(): string {
  return `SBX-${randomToken(12).toUpperCase()}`;
}

/** The lab's id of a sample it accessed. */
export function simulatedAccessionId(): string {
  return `ACC-${randomToken(10).toUpperCase()}`;
}
