/**
 * What the audit trail records of an operation, read from the spec: whether it reads or
 * writes patient data (`x-phi` on the operation, else on its first tag), and where its
 * record ids are (every value whose schema is one marked `x-record-id`: `Token`,
 * `DiagnosticUuid`, ...), in its path, query, body and 2xx answer.
 */
import { resolveObject, resolvePointer, type Doc } from './refs.js';

/** Where one record id sits: `path` | `query` | `body` | `response`, then property names, `[]` for array items. */
export type RecordIdPath = string[];

export interface AuditInfo {
  /** `read` for GET, `write` for every other method. */
  action: 'read' | 'write';
  recordIds: RecordIdPath[];
}

/** Deeper schemas are not followed: record ids sit near the top of every shape the spec has. */
const MAX_DEPTH = 8;

/** The paths under `prefix` of every value of `schema` whose schema is a record id. */
function recordIdPaths(doc: Doc, schema: any, prefix: RecordIdPath, out: Map<string, RecordIdPath>, followed: readonly string[]): void {
  if (!schema || typeof schema !== 'object' || prefix.length > MAX_DEPTH) return;
  if (typeof schema.$ref === 'string') {
    if (followed.includes(schema.$ref)) return; // a recursive shape
    recordIdPaths(doc, resolvePointer(doc, schema.$ref), prefix, out, [...followed, schema.$ref]);
    return;
  }
  if (schema['x-record-id'] === true) {
    out.set(prefix.join('\u0000'), prefix);
    return;
  }
  for (const keyword of ['allOf', 'oneOf', 'anyOf']) {
    for (const branch of schema[keyword] ?? []) recordIdPaths(doc, branch, prefix, out, followed);
  }
  if (schema.items) recordIdPaths(doc, schema.items, [...prefix, '[]'], out, followed);
  for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
    recordIdPaths(doc, property, [...prefix, name], out, followed);
  }
}

/** Whether the operation touches patient data: its `x-phi`, else its first tag's; one of them must say. */
function touchesPatientData(doc: Doc, op: Doc, where: string): boolean {
  const tag: string | undefined = op.tags?.[0];
  const phi: unknown = op['x-phi'] ?? (doc.tags as Doc[] | undefined)?.find((t) => t.name === tag)?.['x-phi'];
  if (typeof phi !== 'boolean') {
    throw new Error(
      `${where} does not say whether it reads or writes patient data: give its first tag (${tag ? `"${tag}"` : 'it has none'}) ` +
        'or the operation `x-phi: true` (every call is recorded in the audit trail) or `x-phi: false`',
    );
  }
  return phi;
}

/** The audit of an operation of path item `item`, or undefined when it touches no patient data. */
export function auditOf(doc: Doc, item: Doc, method: string, op: Doc, where: string): AuditInfo | undefined {
  if (!touchesPatientData(doc, op, where)) return undefined;
  const found = new Map<string, RecordIdPath>();
  for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
    const parameter = resolveObject(doc, raw);
    if (parameter.in === 'path' || parameter.in === 'query') recordIdPaths(doc, parameter.schema, [parameter.in, parameter.name], found, []);
  }
  for (const media of Object.values<Doc>(resolveObject(doc, op.requestBody)?.content ?? {})) {
    recordIdPaths(doc, media.schema, ['body'], found, []);
  }
  for (const [status, raw] of Object.entries<Doc>(op.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    for (const media of Object.values<Doc>(resolveObject(doc, raw)?.content ?? {})) recordIdPaths(doc, media.schema, ['response'], found, []);
  }
  return { action: method === 'get' ? 'read' : 'write', recordIds: [...found.values()] };
}
