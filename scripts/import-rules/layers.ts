/**
 * Rule 2: the layers of the service. Which layer a file is in comes from a table (see
 * scripts/check-imports.ts); which layer may import which is written here, in words.
 */
import { posix } from 'node:path';
import type { Edge, Graph } from './graph.js';

export type NamedLayer = 'kernel' | 'http' | 'drivers' | 'composition';

/**
 * Paths relative to the service's root: `folder/**` is everything under the folder, anything
 * else is one file. The first layer (in the table's order) with a matching path wins, so a
 * file listed under the kernel can sit in a folder that is otherwise http.
 */
export interface LayerTable {
  layers: Record<NamedLayer, string[]>;
  /** The composition file that builds the services: drivers may import it, http its types. */
  services: string;
}

/** Where a file sits; a top-level folder the table does not name is an area of its own. */
type Place =
  | { layer: NamedLayer; path: string }
  | { layer: 'area'; area: string; path: string }
  | { layer: 'unclassified'; path: string };

export interface LayerViolation {
  /** `file:line: <layer> <file> imports <layer> <file> (<names>)`: the line a fixture expects. */
  headline: string;
  /** The rule it breaks, in plain words. */
  rule: string;
}

export function checkLayers(graph: Graph, root: string, table: LayerTable): LayerViolation[] {
  const places = new Map<string, Place>();
  for (const file of graph.files) {
    const path = withinRoot(root, file);
    if (path !== undefined) places.set(file, placeOf(path, table));
  }
  const violations: LayerViolation[] = [...places.entries()]
    .filter(([, place]) => place.layer === 'unclassified')
    .map(([file, place]) => ({
      headline: `${file}: unclassified ${place.path}`,
      rule: 'every top-level file of the service belongs to a layer: add it to the table in scripts/check-imports.ts',
    }));
  for (const edge of graph.edges) {
    const from = places.get(edge.from);
    const to = places.get(edge.to);
    // Outside the service, or an unclassified end (reported once above): nothing to judge.
    if (!from || !to || from.layer === 'unclassified' || to.layer === 'unclassified') continue;
    const rule = brokenRule(from, to, edge, table.services);
    if (rule) violations.push({ headline: headline(edge, from, to), rule });
  }
  return violations;
}

function withinRoot(root: string, file: string): string | undefined {
  if (root === '') return file;
  return file.startsWith(`${root}/`) ? posix.relative(root, file) : undefined;
}

function placeOf(path: string, table: LayerTable): Place {
  for (const [layer, patterns] of Object.entries(table.layers) as [NamedLayer, string[]][]) {
    if (patterns.some((pattern) => matches(pattern, path))) return { layer, path };
  }
  const [top, ...rest] = path.split('/');
  // A top-level file could be anything; guessing would hide it, so it is reported instead.
  return rest.length > 0 ? { layer: 'area', area: top!, path } : { layer: 'unclassified', path };
}

function matches(pattern: string, path: string): boolean {
  return pattern.endsWith('/**') ? path.startsWith(pattern.slice(0, -2)) : path === pattern;
}

/** The rule an import breaks, or undefined when the layers allow it. */
function brokenRule(from: Place, to: Place, edge: Edge, services: string): string | undefined {
  switch (from.layer) {
    case 'composition':
      return undefined; // it puts everything together, so it may import everything
    case 'kernel':
      return to.layer === 'kernel' ? undefined : 'the kernel imports only the kernel';
    case 'area':
      if (to.layer === 'kernel') return undefined;
      if (to.layer === 'area') {
        if (to.area === from.area || edge.typeOnly) return undefined;
        return "an area imports another area only for its types: it receives that area's services through its constructor";
      }
      return 'an area never imports http, drivers or composition';
    case 'drivers':
      if (to.layer === 'http') return 'drivers never import http';
      if (to.layer === 'composition' && to.path !== services) return `drivers import from composition only ${services}, which builds the services`;
      return undefined;
    case 'http':
      if (to.layer === 'drivers') return 'http never imports drivers';
      if (to.layer !== 'composition') return undefined;
      if (to.path !== services) return `http imports from composition only the types of ${services}`;
      return edge.typeOnly ? undefined : `http imports ${services} only for its types (the services come in as arguments)`;
  }
}

function label(place: Place): string {
  return place.layer === 'area' ? `area ${place.area}` : place.layer;
}

function headline(edge: Edge, from: Place, to: Place): string {
  return `${edge.from}:${edge.line}: ${label(from)} ${from.path} imports ${label(to)} ${to.path} (${edge.names.join(', ')})`;
}
