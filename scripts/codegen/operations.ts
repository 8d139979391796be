import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { auditOf, type AuditInfo } from './audit.js';
import { deprecationOf, type DeprecationInfo } from './deprecation.js';
import { resolveObject, type Doc } from './refs.js';
import { bundlePath } from './paths.js';

export type JsonSchema = Record<string, unknown>;
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface ParameterInfo {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

/**
 * An OpenAPI security requirement object as the spec writes it: scheme name to the scopes
 * it needs (`[]` for schemes without scopes). An operation's list is alternatives (any one
 * authorizes); the schemes within one object must all be satisfied.
 */
export type SecurityRequirement = Record<string, string[]>;

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** The service area folder of the operation's handler: its `x-area`, or its first tag's. */
  area: string;
  summary: string;
  /** The operation's `security` (or the document's), as written; `[]` for public operations. */
  security: SecurityRequirement[];
  parameters: ParameterInfo[];
  body?: { required: boolean; contentTypes: string[]; schema: JsonSchema };
  responses: { status: string; contentType?: string; schema?: JsonSchema }[];
  /** What the audit trail records of each call; absent when the operation touches no patient data (`x-phi: false`). */
  audit?: AuditInfo;
  /** The shape its errors are answered in when not the service's common one (`x-error-shape`). */
  errorShape?: ErrorShape;
  /** Present when the operation is deprecated (`deprecated: true`, `x-deprecated-at`, `x-sunset`). */
  deprecation?: DeprecationInfo;
}

/** The error shapes an operation may ask for with `x-error-shape` (the service renders each: apps/api http/error-shapes.ts). */
export const ERROR_SHAPES = ['oauth', 'auto-refill', 'scheduled'] as const;
export type ErrorShape = (typeof ERROR_SHAPES)[number];

function errorShapeOf(op: Doc, where: string): ErrorShape | undefined {
  const shape: unknown = op['x-error-shape'];
  if (shape === undefined) return undefined;
  if (!ERROR_SHAPES.includes(shape as ErrorShape)) {
    throw new Error(`${where}: \`x-error-shape\` must be one of ${ERROR_SHAPES.join(', ')}, not ${JSON.stringify(shape)}`);
  }
  return shape as ErrorShape;
}

/** Every scope the document's OAuth 2.0 security schemes declare (`flows.*.scopes`), sorted. */
export function listScopes(doc: Doc): string[] {
  const scopes = new Set<string>();
  for (const raw of Object.values<Doc>(doc.components?.securitySchemes ?? {})) {
    const scheme = resolveObject(doc, raw) as Doc;
    for (const flow of Object.values<Doc>(scheme.flows ?? {})) for (const scope of Object.keys(flow.scopes ?? {})) scopes.add(scope);
  }
  return [...scopes].sort();
}

export function loadBundle(): Doc {
  return parse(readFileSync(bundlePath, 'utf8')) as Doc;
}

/** Keywords that only document; they are dropped from the schemas the server compiles. */
const DOC_ONLY = new Set(['description', 'title', 'example', 'examples', 'externalDocs', 'deprecated']);

/** Extensions the server reads from a schema: `x-expected` words its validation messages (apps/api http/request-validation.ts). */
const KEPT_EXTENSIONS = new Set(['x-expected']);

function mapValues(obj: Doc, fn: (v: unknown) => unknown): Doc {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fn(v)]));
}

/** The `$id` under which the server registers the bundle's components (see apps/api http/contract-schemas.ts). */
export const CONTRACT_SCHEMA_ID = 'contract';

/**
 * A schema as the route table holds it: references into the bundle's components point at
 * the contract resource the server registers, documentation-only keywords are dropped.
 */
function routeSchema(node: unknown): any {
  if (Array.isArray(node)) return node.map(routeSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Doc)) {
    if ((key.startsWith('x-') && !KEPT_EXTENSIONS.has(key)) || DOC_ONLY.has(key)) continue;
    if (key === '$ref' && typeof value === 'string') out[key] = value.startsWith('#/') ? CONTRACT_SCHEMA_ID + value : value;
    // Under `properties` the keys are field names, never keywords.
    else out[key] = key === 'properties' ? mapValues(value as Doc, routeSchema) : routeSchema(value);
  }
  return out;
}

/**
 * Copies an operation's security requirements, failing on a scheme that
 * `components.securitySchemes` does not define (the server looks schemes up by that name).
 */
function securityRequirements(doc: Doc, requirements: unknown, where: string): SecurityRequirement[] {
  if (!Array.isArray(requirements)) throw new Error(`${where}: \`security\` must be a list of security requirement objects`);
  const defined = Object.keys(doc.components?.securitySchemes ?? {});
  return requirements.map((requirement: unknown) => {
    if (!requirement || typeof requirement !== 'object' || Array.isArray(requirement)) {
      throw new Error(`${where}: every \`security\` entry must be an object of scheme name to scopes`);
    }
    return Object.fromEntries(
      Object.entries(requirement as Doc).map(([scheme, scopes]) => {
        if (!defined.includes(scheme)) {
          throw new Error(
            `${where} names the security scheme "${scheme}", which components.securitySchemes does not define ` +
              `(defined: ${defined.join(', ') || 'none'}); add it to spec/openapi.yaml or fix the name`,
          );
        }
        if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) {
          throw new Error(`${where}: the scopes of security scheme "${scheme}" must be a list of strings`);
        }
        return [scheme, [...scopes]];
      }),
    );
  });
}

/** Area folder names: kebab case, so they are plain folder names under apps/api/src/handlers/. */
const AREA = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * The area folder of an operation's handler: the operation's `x-area`, else that of its
 * first tag (`tags` in spec/openapi.yaml). An operation with neither fails generation.
 */
function areaOf(doc: Doc, op: Doc, where: string): string {
  const tag: string | undefined = op.tags?.[0];
  const tagArea = (doc.tags as Doc[] | undefined)?.find((t) => t.name === tag)?.['x-area'];
  const area: unknown = op['x-area'] ?? tagArea;
  if (area === undefined) {
    throw new Error(
      `${where} has no area: give its first tag (${tag ? `"${tag}"` : 'it has none'}) an \`x-area\` in spec/openapi.yaml, ` +
        `or the operation its own \`x-area\` (the folder of its handler under apps/api/src/handlers/)`,
    );
  }
  if (typeof area !== 'string' || !AREA.test(area)) {
    throw new Error(`${where}: \`x-area\` must be a kebab-case folder name (such as fill-requests), not ${JSON.stringify(area)}`);
  }
  return area;
}

export function listOperations(doc: Doc): OperationInfo[] {
  const ops: OperationInfo[] = [];
  const globalSecurity: unknown = doc.security ?? [];
  for (const [path, rawItem] of Object.entries<Doc>(doc.paths ?? {})) {
    const item = resolveObject(doc, rawItem) as Doc;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const params: ParameterInfo[] = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p: Doc) => resolveObject(doc, p))
        .map((p: Doc) => ({ name: p.name, in: p.in, required: Boolean(p.required), schema: routeSchema(p.schema ?? {}) }));
      const where = `operation ${op.operationId} (${method.toUpperCase()} ${path})`;
      const security = securityRequirements(doc, op.security ?? globalSecurity, where);
      let body: OperationInfo['body'];
      const requestBody = resolveObject(doc, op.requestBody);
      if (requestBody) {
        const content = requestBody.content as Doc;
        const contentTypes = Object.keys(content);
        const primary = content['application/json'] ?? content[contentTypes[0]!];
        body = { required: Boolean(requestBody.required), contentTypes, schema: routeSchema(primary.schema ?? {}) };
      }
      const responses = Object.entries<Doc>(op.responses ?? {}).map(([status, raw]) => {
        const resp = resolveObject(doc, raw);
        const [contentType, media] = Object.entries<Doc>(resp.content ?? {})[0] ?? [];
        return { status, contentType, schema: media?.schema && routeSchema(media.schema) };
      });
      ops.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        area: areaOf(doc, op, where),
        summary: op.summary ?? '',
        security,
        parameters: params,
        body,
        responses,
        audit: auditOf(doc, item, method, op, where),
        errorShape: errorShapeOf(op, where),
        deprecation: deprecationOf(op, where),
      });
    }
  }
  return ops.sort((a, b) => a.operationId.localeCompare(b.operationId));
}
