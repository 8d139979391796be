/**
 * Requests built from the bundled spec's own examples (packages/contract/openapi.yaml): for
 * every operation of the route table, its path, query and body as the spec illustrates them,
 * with the examples' tokens swapped for the bench's fixtures.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  example?: Json;
  examples?: Record<string, { value: Json }>;
  schema?: { example?: Json };
}

export interface SpecOperation {
  operationId: string;
  method: string;
  /** The path template, `/v1/patient/{patient_token}`. */
  path: string;
  parameters: Parameter[];
  /** The request body's media type and its examples by name (the first is the spec's `example`, if any). */
  body?: { contentType: string; examples: Record<string, Json> };
}

export function loadSpecOperations(): Map<string, SpecOperation> {
  const document = YAML.parse(readFileSync(join(repoRoot, 'packages', 'contract', 'openapi.yaml'), 'utf8')) as Record<string, any>;
  const deref = (node: any): any => {
    if (node && typeof node === 'object' && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      let target: any = document;
      for (const key of node.$ref.slice(2).split('/')) target = target[key.replace(/~1/g, '/').replace(/~0/g, '~')];
      return deref(target);
    }
    return node;
  };
  const operations = new Map<string, SpecOperation>();
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op || typeof op !== 'object' || !op.operationId) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref) as Parameter[];
      let body: SpecOperation['body'];
      const requestBody = deref(op.requestBody);
      if (requestBody?.content) {
        const [contentType, media] = Object.entries<any>(requestBody.content)[0]!;
        const examples: Record<string, Json> = {};
        if (media.example !== undefined) examples.example = media.example;
        for (const [name, example] of Object.entries<any>(media.examples ?? {})) examples[name] = deref(example).value;
        body = { contentType, examples };
      }
      operations.set(op.operationId, { operationId: op.operationId, method: method.toUpperCase(), path, parameters, body });
    }
  }
  return operations;
}

export function parameterExample(parameter: Parameter): Json | undefined {
  if (parameter.example !== undefined) return parameter.example;
  if (parameter.schema?.example !== undefined) return parameter.schema.example;
  const first = parameter.examples && Object.values(parameter.examples)[0];
  return first?.value;
}

/** `value` with every string equal to a key of `tokens` replaced by its fixture (deeply). */
export function substitute<T extends Json>(value: T, tokens: ReadonlyMap<string, string>): T {
  if (typeof value === 'string') return (tokens.get(value) ?? value) as T;
  if (Array.isArray(value)) return value.map((v) => substitute(v, tokens)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, tokens)])) as T;
  return value;
}

export interface BuiltRequest {
  method: string;
  /** Path and query string. */
  path: string;
  body?: string;
  contentType?: string;
}

/**
 * The operation's request from its examples: path parameters by example token (then by name
 * from `byName`), the required query parameters plus `query`, and the body example `exampleName`
 * (default: the first) merged with `bodyPatch`.
 */
export function buildRequest(
  op: SpecOperation,
  tokens: ReadonlyMap<string, string>,
  options: { byName?: Record<string, string>; query?: Record<string, string | string[] | undefined>; exampleName?: string; body?: Json; bodyPatch?: Record<string, Json | undefined> } = {},
): BuiltRequest {
  let path = op.path;
  const search = new URLSearchParams();
  for (const parameter of op.parameters) {
    const example = parameterExample(parameter);
    if (parameter.in === 'path') {
      const value = options.byName?.[parameter.name] ?? (typeof example === 'string' ? tokens.get(example) : undefined) ?? String(example);
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
    } else if (parameter.in === 'query' && parameter.required && !(options.query && parameter.name in options.query) && example !== undefined) {
      const value = substitute(example, tokens);
      for (const v of Array.isArray(value) ? value : [value]) search.append(parameter.name, String(v));
    }
  }
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, v);
  }
  const query = search.toString();
  const built: BuiltRequest = { method: op.method, path: query ? `${path}?${query}` : path };
  if (op.body || options.body !== undefined) {
    let body: Json | undefined = options.body;
    if (body === undefined && op.body) {
      const examples = op.body.examples;
      body = substitute((options.exampleName ? examples[options.exampleName] : Object.values(examples)[0]) ?? {}, tokens);
    }
    if (options.bodyPatch && body && typeof body === 'object' && !Array.isArray(body)) {
      body = { ...body };
      for (const [k, v] of Object.entries(options.bodyPatch)) {
        if (v === undefined) delete (body as Record<string, Json>)[k];
        else (body as Record<string, Json>)[k] = v;
      }
    }
    built.contentType = op.body?.contentType ?? 'application/json';
    if (built.contentType === 'application/json') built.body = JSON.stringify(body);
  }
  return built;
}
