/**
 * `x-not-implemented: true` marks an operation of the contract whose handler is still the
 * stub `pnpm generate` scaffolds (it throws `notImplemented(...)`, answering `501`). The
 * bundle shows it (a Redoc badge and a note at the top of the description), and
 * `pnpm check:generated` holds the marker to the handlers: a stub without the marker, or
 * a marker on a real handler, fails.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTTP_METHODS } from './operations.js';
import { resolveObject, type Doc } from './refs.js';

export const NOT_IMPLEMENTED_MARKER = 'x-not-implemented';

/** The Redoc badge (`x-badges`) of a marked operation. */
export const NOT_IMPLEMENTED_BADGE = { name: 'Not implemented', color: '#b60205' };

/** Put before a marked operation's description, for renderers without badges. */
export const NOT_IMPLEMENTED_NOTE =
  '> **Not implemented yet.** This operation is part of the interface, but the service answers it with `501 Not Implemented` until it is built.';

/** A call of the errors module's `notImplemented(...)`: what the generated stub does. */
const STUB_CALL = /\bnotImplemented\s*\(/;

/** Whether an operation carries `x-not-implemented: true` (any other value than a boolean fails). */
export function isMarkedNotImplemented(op: Doc, where = `operation ${op.operationId}`): boolean {
  const marker: unknown = op[NOT_IMPLEMENTED_MARKER];
  if (marker === undefined) return false;
  if (typeof marker !== 'boolean') throw new Error(`${where}: \`${NOT_IMPLEMENTED_MARKER}\` must be true or false, not ${JSON.stringify(marker)}`);
  return marker;
}

/** operationId → marked, for every operation of a bundle. */
export function notImplementedMarkers(doc: Doc): Map<string, boolean> {
  const markers = new Map<string, boolean>();
  for (const [path, rawItem] of Object.entries<Doc>(doc.paths ?? {})) {
    const item = resolveObject(doc, rawItem) as Doc;
    for (const method of HTTP_METHODS) {
      const op = item[method] as Doc | undefined;
      if (op) markers.set(op.operationId, isMarkedNotImplemented(op, `operation ${op.operationId} (${method.toUpperCase()} ${path})`));
    }
  }
  return markers;
}

export interface HandlerOperation {
  operationId: string;
  /** The folder of its handler under the handlers directory (`x-area`). */
  area: string;
  notImplemented: boolean;
}

/**
 * Every disagreement between the markers and the handlers under `handlersDir`
 * (`<area>/<operationId>.ts`): a handler that still calls `notImplemented(...)` for an
 * operation without the marker, or a marked operation whose handler does not.
 */
export function notImplementedMismatches(ops: HandlerOperation[], handlersDir: string): string[] {
  const problems: string[] = [];
  for (const op of ops) {
    const file = join(handlersDir, op.area, `${op.operationId}.ts`);
    if (!existsSync(file)) continue; // the compiler reports a missing handler (handler-index.ts imports each)
    const stub = STUB_CALL.test(readFileSync(file, 'utf8'));
    const where = `${op.area}/${op.operationId}.ts`;
    if (stub && !op.notImplemented) {
      problems.push(`${where} still throws notImplemented(), but ${op.operationId} has no \`${NOT_IMPLEMENTED_MARKER}: true\`: mark it in spec/ (the docs then say so), or implement it`);
    }
    if (!stub && op.notImplemented) {
      problems.push(`${op.operationId} is marked \`${NOT_IMPLEMENTED_MARKER}: true\`, but ${where} is implemented: remove the marker from spec/`);
    }
  }
  return problems;
}

/** Shows the marker in an operation of the bundle: the badge, and the note before its description. */
export function showNotImplemented(op: Doc): { 'x-badges': Doc[]; description: string } {
  const badges = [...((op['x-badges'] as Doc[] | undefined) ?? []), NOT_IMPLEMENTED_BADGE];
  const description = typeof op.description === 'string' && op.description.trim() ? `${NOT_IMPLEMENTED_NOTE}\n\n${op.description}` : `${NOT_IMPLEMENTED_NOTE}\n`;
  return { 'x-badges': badges, description };
}
