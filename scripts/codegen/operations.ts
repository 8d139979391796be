import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { bundlePath } from './paths.js';

export type JsonSchema = Record<string, unknown>;
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface ParameterInfo {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  security: string[];
  parameters: ParameterInfo[];
  body?: { required: boolean; contentTypes: string[]; schema: JsonSchema };
  responses: { status: string; contentType?: string; schema?: JsonSchema }[];
}

type Doc = Record<string, any>;

export function loadBundle(): Doc {
  return parse(readFileSync(bundlePath, 'utf8')) as Doc;
}

/** Keywords that only document; they are dropped from the schemas the server compiles. */
const DOC_ONLY = new Set(['description', 'title', 'example', 'examples', 'externalDocs', 'deprecated']);

/** Inlines every local `$ref` so each route schema stands alone. */
export function inline(doc: Doc, node: unknown, seen: string[] = []): any {
  if (Array.isArray(node)) return node.map((n) => inline(doc, n, seen));
  if (!node || typeof node !== 'object') return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    if (seen.includes(ref)) throw new Error(`recursive schema ${ref} cannot be inlined`);
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((acc, key) => acc?.[key], doc);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    const { $ref: _ignored, ...siblings } = obj;
    return inline(doc, { ...target, ...siblings }, [...seen, ref]);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key.startsWith('x-')) continue;
    if (DOC_ONLY.has(key)) continue;
    // Under `properties` the keys are field names, never keywords.
    out[key] = key === 'properties' ? mapValues(value as Doc, (v) => inline(doc, v, seen)) : inline(doc, value, seen);
  }
  return out;
}

function mapValues(obj: Doc, fn: (v: unknown) => unknown): Doc {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fn(v)]));
}

export function listOperations(doc: Doc): OperationInfo[] {
  const ops: OperationInfo[] = [];
  const globalSecurity: Doc[] = doc.security ?? [];
  for (const [path, rawItem] of Object.entries<Doc>(doc.paths ?? {})) {
    const item = inline(doc, rawItem, []) as Doc;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const params: ParameterInfo[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Doc) => ({
        name: p.name,
        in: p.in,
        required: Boolean(p.required),
        schema: p.schema ?? {},
      }));
      const security: Doc[] = op.security ?? globalSecurity;
      let body: OperationInfo['body'];
      if (op.requestBody) {
        const content = op.requestBody.content as Doc;
        const contentTypes = Object.keys(content);
        const primary = content['application/json'] ?? content[contentTypes[0]!];
        body = { required: Boolean(op.requestBody.required), contentTypes, schema: primary.schema ?? {} };
      }
      const responses = Object.entries<Doc>(op.responses ?? {}).map(([status, resp]) => {
        const [contentType, media] = Object.entries<Doc>(resp.content ?? {})[0] ?? [];
        return { status, contentType, schema: media?.schema };
      });
      ops.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        tag: op.tags?.[0] ?? 'Default',
        summary: op.summary ?? '',
        security: security.flatMap((s) => Object.keys(s)),
        parameters: params,
        body,
        responses,
      });
    }
  }
  return ops.sort((a, b) => a.operationId.localeCompare(b.operationId));
}
