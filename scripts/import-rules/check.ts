/**
 * The check itself, pure: files (posix path → source text) and the layer table in, the
 * violations out. The fixtures and the real tree both go through `checkImports`.
 */
import { findCircles, describeCircle, circleHeadline, type Circle } from './circles.js';
import { buildGraph, type Graph } from './graph.js';
import { checkLayers, type LayerTable, type LayerViolation } from './layers.js';

export interface ImportReport {
  files: number;
  imports: number;
  circles: Circle[];
  layerViolations: LayerViolation[];
  unresolved: Graph['unresolved'];
}

/** `root` is the service's folder among the files' paths (`apps/api/src`; `''` for a fixture). */
export function checkImports(files: ReadonlyMap<string, string>, root: string, table: LayerTable): ImportReport {
  const graph = buildGraph(files);
  return {
    files: graph.files.length,
    imports: graph.edges.length,
    circles: findCircles(graph),
    layerViolations: checkLayers(graph, root, table),
    unresolved: graph.unresolved,
  };
}

/** One line per violation, the way a fixture's expectations are written. */
export function headlines(report: ImportReport): string[] {
  return [...report.circles.map(circleHeadline), ...report.layerViolations.map((violation) => violation.headline)];
}

export function passes(report: ImportReport): boolean {
  return report.circles.length === 0 && report.layerViolations.length === 0;
}

/** Violations grouped by rule, each with its details, then a count. */
export function describe(report: ImportReport): string[] {
  const lines: string[] = [];
  if (report.circles.length > 0) {
    lines.push(`━━ rule 1: no import circle, type-only imports included (${report.circles.length} circles)`);
    for (const circle of report.circles) lines.push(...describeCircle(circle));
  }
  if (report.layerViolations.length > 0) {
    lines.push(`━━ rule 2: the service's layers (${report.layerViolations.length} imports break them)`);
    for (const [rule, count] of tally(report.layerViolations)) lines.push(`  ${count} × ${rule}`);
    for (const violation of report.layerViolations) lines.push(violation.headline, `    ${violation.rule}`);
  }
  lines.push(
    `✖ imports: ${report.files} files, ${report.imports} imports; ` +
      `${report.circles.length} circles, ${report.layerViolations.length} layer violations`,
  );
  return lines;
}

function tally(violations: LayerViolation[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const { rule } of violations) counts.set(rule, (counts.get(rule) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}
