/**
 * Rule 1: no import circle, type-only imports included. A circle of types is still a circle
 * a reader has to untangle, and it is how value circles start.
 */
import { posix } from 'node:path';
import { edgesByFile, type Edge, type Graph } from './graph.js';

/** One knot of files that import each other, shown by one circle through it. */
export interface Circle {
  /** Every file of the strongly connected component, sorted. */
  component: string[];
  /** A shortest circle through the component's first file: its arrows, in order. */
  arrows: Edge[][];
}

export function findCircles(graph: Graph): Circle[] {
  const byFile = edgesByFile(graph);
  const selfImporting = (file: string) => (byFile.get(file) ?? []).some((edge) => edge.to === file);
  return stronglyConnected(graph.files, byFile)
    .filter((component) => component.length > 1 || selfImporting(component[0]!))
    .map((component) => ({ component, arrows: shortestCircle(component, byFile) }))
    .sort((a, b) => a.component[0]!.localeCompare(b.component[0]!));
}

/** Tarjan's algorithm: each component comes out sorted. */
function stronglyConnected(files: string[], byFile: Map<string, Edge[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];

  const connect = (file: string): void => {
    index.set(file, index.size);
    lowLink.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const { to } of byFile.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(to)!));
      } else if (onStack.has(to)) {
        lowLink.set(file, Math.min(lowLink.get(file)!, index.get(to)!));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    // `file` is the root of a component: everything above it on the stack belongs to it.
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    components.push(component.sort());
  };

  for (const file of files) if (!index.has(file)) connect(file);
  return components;
}

/**
 * A component may hold many circles; the shortest one through its first file is the one
 * to print (breadth-first, staying inside the component). Each arrow keeps every import
 * statement between its two files, so a value import hiding behind a type import shows.
 */
function shortestCircle(component: string[], byFile: Map<string, Edge[]>): Edge[][] {
  const start = component[0]!;
  const inside = new Set(component);
  const cameBy = new Map<string, Edge>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const file = queue[at]!;
    for (const edge of byFile.get(file) ?? []) {
      if (!inside.has(edge.to) || cameBy.has(edge.to)) continue;
      cameBy.set(edge.to, edge);
      if (edge.to === start) return arrowsBack(start, cameBy, byFile);
      queue.push(edge.to);
    }
  }
  throw new Error(`no circle through ${start}, yet it is in a component of ${component.length}`);
}

function arrowsBack(start: string, cameBy: Map<string, Edge>, byFile: Map<string, Edge[]>): Edge[][] {
  const arrows: Edge[][] = [];
  let to = start;
  do {
    const from = cameBy.get(to)!.from;
    arrows.unshift((byFile.get(from) ?? []).filter((edge) => edge.to === to));
    to = from;
  } while (to !== start);
  return arrows;
}

/** `circle in apps/api/src (types only): a.ts -> b.ts -> a.ts`: the one line a fixture expects. */
export function circleHeadline(circle: Circle): string {
  const files = circle.arrows.map((arrow) => arrow[0]!.from);
  const base = commonFolder(circle.component);
  const short = (file: string) => (base ? posix.relative(base, file) : file);
  const typesOnly = circle.arrows.every((arrow) => arrow.every((edge) => edge.typeOnly));
  const where = `circle${base ? ` in ${base}` : ''}${typesOnly ? ' (types only)' : ''}`;
  return `${where}: ${[...files, files[0]!].map(short).join(' -> ')}`;
}

/** The headline, each arrow's imports (file:line and names), and the rest of the knot. */
export function describeCircle(circle: Circle): string[] {
  const lines = [circleHeadline(circle)];
  for (const arrow of circle.arrows) {
    for (const edge of arrow) lines.push(`    ${edge.from}:${edge.line} -> ${edge.to} (${edge.names.join(', ')})`);
  }
  const shown = new Set(circle.arrows.map((arrow) => arrow[0]!.from));
  const others = circle.component.filter((file) => !shown.has(file));
  if (others.length > 0) lines.push(`    tangled in the same knot, ${others.length} more: ${others.join(', ')}`);
  return lines;
}

function commonFolder(files: string[]): string {
  const folders = files.map((file) => posix.dirname(file).split('/'));
  const common: string[] = [];
  for (const [depth, part] of folders[0]!.entries()) {
    if (part === '.' || !folders.every((folder) => folder[depth] === part)) break;
    common.push(part);
  }
  return common.join('/');
}
