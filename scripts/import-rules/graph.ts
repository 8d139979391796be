/**
 * The file graph: every relative import of every file, resolved to the file it names.
 * Pure: it sees only the files it is given (posix paths → source text), so the fixtures
 * and the real tree are read the same way.
 */
import { posix } from 'node:path';
import { importsOf } from './parse.js';

/** One import from one file to another file of the set. */
export interface Edge {
  from: string;
  to: string;
  line: number;
  names: string[];
  typeOnly: boolean;
}

export interface Graph {
  files: string[];
  edges: Edge[];
  /** Relative specifiers that name no file of the set (a `.json`, a file outside the scan). */
  unresolved: { from: string; line: number; specifier: string }[];
}

export function buildGraph(files: ReadonlyMap<string, string>): Graph {
  const graph: Graph = { files: [...files.keys()].sort(), edges: [], unresolved: [] };
  for (const from of graph.files) {
    for (const written of importsOf(from, files.get(from) ?? '')) {
      // Packages (`@pharmacy/contract`, `kysely`, `node:fs`) are other builds, not edges.
      if (!written.specifier.startsWith('./') && !written.specifier.startsWith('../')) continue;
      const to = resolve(from, written.specifier, files);
      if (to === undefined) graph.unresolved.push({ from, line: written.line, specifier: written.specifier });
      else graph.edges.push({ from, to, line: written.line, names: written.names, typeOnly: written.typeOnly });
    }
  }
  return graph;
}

/**
 * NodeNext specifiers name the emitted `.js`; the source is the `.ts` beside it. A folder
 * (or `folder/index.js`) means its `index.ts`.
 */
function resolve(from: string, specifier: string, files: ReadonlyMap<string, string>): string | undefined {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  const stem = target.replace(/\.(js|ts)$/u, '');
  const candidates = [`${stem}.ts`, posix.join(stem, 'index.ts')];
  return candidates.find((candidate) => files.has(candidate));
}

/** Each file's outgoing edges, in the order written. */
export function edgesByFile(graph: Graph): Map<string, Edge[]> {
  const byFile = new Map<string, Edge[]>(graph.files.map((file) => [file, []]));
  for (const edge of graph.edges) byFile.get(edge.from)?.push(edge);
  return byFile;
}
