/**
 * Request samples for every operation of the bundle (`x-codeSamples`, shown by Redoc beside
 * each operation): a curl command and a call through the typed client `@pharmacy/client`.
 * Every value comes from the spec itself: the request body's first named example, each
 * parameter's example (else its schema's), and only where the spec gives none, a minimal
 * value built from the schema's required fields. Nothing here is written by hand per
 * operation, so the samples follow the spec as it changes.
 */
import { HTTP_METHODS } from './operations.js';
import { resolveObject, type Doc } from './refs.js';

/** Where the samples send requests, and the environment variables that hold the credentials. */
export const SAMPLE_BASE_URL = 'http://localhost:3000';
const API_KEY_VARIABLE = 'PHARMACY_API_KEY';
const ACCESS_TOKEN_VARIABLE = 'PHARMACY_ACCESS_TOKEN';
const PLATFORM_CREDENTIALS = { clientId: 'PHARMACY_CLIENT_ID', clientSecret: 'PHARMACY_CLIENT_SECRET', audience: 'PHARMACY_AUDIENCE' };

export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: 'curl' | 'TypeScript';
  source: string;
}

/** How an operation is authenticated in its samples, from its first usable security alternative. */
type SampleAuth =
  | { kind: 'api-key' }
  | { kind: 'bearer' }
  /** An API-key scheme in a header of its own (`x-tenant-id`), its value in an environment variable. */
  | { kind: 'header'; header: string; variable: string }
  | { kind: 'none' };

/** A request as the samples send it: every value already chosen from the spec. */
export interface SampleRequest {
  operationId: string;
  method: string;
  path: string;
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  /** Sent with `Idempotency-Key`, which the operation declares (the typed client adds one itself). */
  idempotent: boolean;
  /** A JSON body, or a file of another media type (an upload). */
  body?: { kind: 'json'; value: unknown } | { kind: 'file'; contentType: string };
  auth: SampleAuth;
  /** What the success answer holds: JSON, text (YAML), bytes, or nothing. */
  answer: 'json' | 'text' | 'blob' | 'none';
}

// ── values from the spec ────────────────────────────────────────────────────────────────

function firstExampleValue(doc: Doc, examples: unknown): unknown {
  const first = Object.values((examples as Doc | undefined) ?? {})[0];
  return first === undefined ? undefined : resolveObject(doc, first)?.value;
}

/** A schema's own example (`examples[0]`, else `example`), following `$ref`s. */
function schemaExample(doc: Doc, raw: unknown): unknown {
  const schema = resolveObject(doc, raw) as Doc | undefined;
  if (!schema) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  return schema.example;
}

const FORMAT_VALUES: Record<string, string> = {
  'date-time': '2026-01-15T17:04:05Z',
  date: '2026-01-15',
  uuid: '3f6c1a2e-8b4d-4c9a-9e2f-7a1b2c3d4e5f',
  email: 'jane.doe@example.com',
  uri: 'https://example.com/',
};

/** The smallest value a schema accepts that reads sensibly: its example, const, enum or default, else one built from its type. */
export function minimalValue(doc: Doc, raw: unknown, depth = 0): unknown {
  const schema = resolveObject(doc, raw) as Doc | undefined;
  if (!schema || depth > 8) return null;
  const example = schemaExample(doc, schema);
  if (example !== undefined) return example;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alternatives: unknown[] | undefined = schema.oneOf ?? schema.anyOf;
  if (alternatives?.length) return minimalValue(doc, alternatives[0], depth + 1);
  if (schema.allOf?.length) {
    const parts = (schema.allOf as unknown[]).map((part) => minimalValue(doc, part, depth + 1));
    return parts.every((part) => part && typeof part === 'object' && !Array.isArray(part)) ? Object.assign({}, ...parts) : parts.at(-1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(((schema.required as string[] | undefined) ?? []).map((name) => [name, minimalValue(doc, schema.properties?.[name], depth + 1)]));
    case 'array':
      return (schema.minItems ?? 0) > 0 ? [minimalValue(doc, schema.items, depth + 1)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      return FORMAT_VALUES[schema.format as string] ?? 'string';
    default:
      return null;
  }
}

/** A parameter's value: its own example, its first named example, its schema's example, or a minimal one. */
function parameterValue(doc: Doc, parameter: Doc): unknown {
  return parameter.example ?? firstExampleValue(doc, parameter.examples) ?? minimalValue(doc, parameter.schema);
}

function authOf(doc: Doc, op: Doc): SampleAuth {
  const alternatives: Doc[] = op.security ?? doc.security ?? [];
  const schemes = alternatives.flatMap((alternative) => Object.keys(alternative)).map((name) => ({ name, scheme: resolveObject(doc, doc.components?.securitySchemes?.[name]) as Doc }));
  const apiKey = schemes.find(({ scheme }) => scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name.toLowerCase() === 'authorization');
  if (apiKey) return { kind: 'api-key' };
  if (schemes.some(({ scheme }) => scheme?.type === 'oauth2' || (scheme?.type === 'http' && scheme.scheme === 'bearer'))) return { kind: 'bearer' };
  const header = schemes.find(({ scheme }) => scheme?.type === 'apiKey' && scheme.in === 'header');
  if (header) {
    const variable = `PHARMACY_${header.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
    return { kind: 'header', header: header.scheme.name, variable };
  }
  return { kind: 'none' };
}

function answerOf(doc: Doc, op: Doc): SampleRequest['answer'] {
  const success = Object.entries<Doc>(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
  const types = Object.keys(resolveObject(doc, success)?.content ?? {});
  if (types.length === 0) return 'none';
  if (types.some((type) => /json/i.test(type))) return 'json';
  if (types.some((type) => type.startsWith('text/') || /yaml/i.test(type))) return 'text';
  return 'blob';
}

/** The request an operation's samples send, every value taken from the spec. */
export function sampleRequest(doc: Doc, path: string, method: string, item: Doc, op: Doc): SampleRequest {
  const request: SampleRequest = {
    operationId: op.operationId,
    method: method.toUpperCase(),
    path,
    pathParams: {},
    query: {},
    headers: {},
    idempotent: false,
    auth: authOf(doc, op),
    answer: answerOf(doc, op),
  };
  for (const parameter of [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: unknown) => resolveObject(doc, p) as Doc)) {
    if (parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key') request.idempotent = true;
    else if (parameter.in === 'path') request.pathParams[parameter.name] = parameterValue(doc, parameter);
    else if (parameter.required && parameter.in === 'query') request.query[parameter.name] = parameterValue(doc, parameter);
    else if (parameter.required && parameter.in === 'header') request.headers[parameter.name] = parameterValue(doc, parameter);
  }
  const content: Doc = resolveObject(doc, op.requestBody)?.content ?? {};
  const json = content['application/json'];
  if (json) {
    const value = firstExampleValue(doc, json.examples) ?? json.example ?? minimalValue(doc, json.schema);
    request.body = { kind: 'json', value };
  } else if (Object.keys(content).length > 0) {
    request.body = { kind: 'file', contentType: Object.keys(content)[0]! };
  }
  return request;
}

// ── curl ────────────────────────────────────────────────────────────────────────────────

/** A word for the shell, single-quoted (a `'` inside closes, escapes and reopens the quote). */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function queryString(query: Record<string, unknown>): string {
  const pairs = Object.entries(query).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => `${encodeURIComponent(name)}=${encodeURIComponent(String(item))}`),
  );
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

function filledPath(request: SampleRequest): string {
  return request.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(request.pathParams[name])));
}

/** The file name an upload sample sends, by its media type. */
function sampleFile(contentType: string): string {
  const extension: Record<string, string> = { 'image/png': 'scan.png', 'image/jpeg': 'scan.jpg', 'application/pdf': 'document.pdf' };
  return extension[contentType] ?? 'file.bin';
}

export function curlSample(request: SampleRequest): string {
  const lines = [`curl ${request.method === 'GET' ? '' : `-X ${request.method} `}${shellQuote(`${SAMPLE_BASE_URL}${filledPath(request)}${queryString(request.query)}`)}`];
  const comments: string[] = [];
  switch (request.auth.kind) {
    case 'api-key':
      lines.push(`-H "Authorization: ApiKey $${API_KEY_VARIABLE}"`);
      break;
    case 'bearer':
      comments.push(`# $${ACCESS_TOKEN_VARIABLE}: the access_token answered by POST /oauth/token`);
      lines.push(`-H "Authorization: Bearer $${ACCESS_TOKEN_VARIABLE}"`);
      break;
    case 'header':
      lines.push(`-H "${request.auth.header}: $${request.auth.variable}"`);
      break;
  }
  for (const [name, value] of Object.entries(request.headers)) lines.push(`-H ${shellQuote(`${name}: ${String(value)}`)}`);
  if (request.idempotent) lines.push(`-H "Idempotency-Key: $(uuidgen)"`);
  if (request.body?.kind === 'json') {
    lines.push(`-H 'content-type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(request.body.value, null, 2))}`);
  } else if (request.body?.kind === 'file') {
    lines.push(`-H ${shellQuote(`content-type: ${request.body.contentType}`)}`);
    lines.push(`--data-binary @${sampleFile(request.body.contentType)}`);
  }
  return [...comments, lines.join(' \\\n  ')].join('\n');
}

// ── TypeScript (@pharmacy/client) ──────────────────────────────────────────────────────

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function tsString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/** A value as a TypeScript literal: unquoted keys where they are identifiers, single-quoted strings. */
export function tsLiteral(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? tsString(value) : String(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Doc);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([key, item]) => `${inner}${IDENTIFIER.test(key) ? key : tsString(key)}: ${tsLiteral(item, inner)},`).join('\n')}\n${indent}}`;
}

function clientSetup(request: SampleRequest): { lines: string[]; client: string } {
  if (request.auth.kind === 'bearer') {
    const env = (name: string) => `process.env.${name}!`;
    return {
      client: 'platform',
      lines: [
        `import { createPlatformClient } from '@pharmacy/client';`,
        '',
        '// Exchanges the client credentials for a bearer token, cached and renewed for you.',
        'const platform = createPlatformClient({',
        `  baseUrl: ${tsString(SAMPLE_BASE_URL)},`,
        `  clientId: ${env(PLATFORM_CREDENTIALS.clientId)},`,
        `  clientSecret: ${env(PLATFORM_CREDENTIALS.clientSecret)},`,
        `  audience: ${env(PLATFORM_CREDENTIALS.audience)},`,
        '});',
      ],
    };
  }
  const apiKey = request.auth.kind === 'api-key' ? `, apiKey: process.env.${API_KEY_VARIABLE}` : '';
  return {
    client: 'pharmacy',
    lines: [`import { createPharmacyClient } from '@pharmacy/client';`, '', `const pharmacy = createPharmacyClient({ baseUrl: ${tsString(SAMPLE_BASE_URL)}${apiKey} });`],
  };
}

export function typeScriptSample(request: SampleRequest): string {
  const { lines, client } = clientSetup(request);
  const init: string[] = [];
  const params: string[] = [];
  if (Object.keys(request.pathParams).length > 0) params.push(`    path: ${tsLiteral(request.pathParams, '    ')},`);
  if (Object.keys(request.query).length > 0) params.push(`    query: ${tsLiteral(request.query, '    ')},`);
  if (Object.keys(request.headers).length > 0) params.push(`    header: ${tsLiteral(request.headers, '    ')},`);
  if (params.length > 0) init.push('  params: {', ...params, '  },');
  if (request.auth.kind === 'header') init.push(`  headers: { ${tsString(request.auth.header)}: process.env.${request.auth.variable}! },`);
  const prelude: string[] = [];
  if (request.body?.kind === 'json') {
    init.push(`  body: ${tsLiteral(request.body.value, '  ')},`);
  } else if (request.body?.kind === 'file') {
    lines.unshift(`import { readFile } from 'node:fs/promises';`);
    prelude.push(`const file = await readFile(${tsString(sampleFile(request.body.contentType))});`);
    // The contract types the body as a string; the serializer sends the file's bytes as they are.
    init.push(`  body: '',`, '  bodySerializer: () => file,', `  headers: { 'content-type': ${tsString(request.body.contentType)} },`);
  }
  if (request.answer === 'text' || request.answer === 'blob') init.push(`  parseAs: '${request.answer}',`);
  const call = `${client}.${request.method}(${tsString(request.path)}${init.length > 0 ? `, {\n${init.join('\n')}\n}` : ''})`;
  const result = request.answer === 'none' ? '{ error, response }' : '{ data, error, response }';
  const output =
    request.answer === 'none'
      ? 'console.log(response.status);'
      : request.answer === 'blob'
        ? 'console.log(data.type, data.size);'
        : 'console.log(data);';
  return [
    ...lines,
    '',
    ...prelude,
    `const ${result} = await ${call};`,
    `if (error) throw new Error(\`${request.operationId} answered \${response.status}: \${JSON.stringify(error)}\`);`,
    output,
    '',
  ].join('\n');
}

// ── the bundle ──────────────────────────────────────────────────────────────────────────

export interface OperationSamples {
  path: string;
  method: string;
  operationId: string;
  request: SampleRequest;
  samples: CodeSample[];
}

/** The samples of every operation of a bundle (its `paths`; webhooks are answered, not called). */
export function codeSamples(doc: Doc): OperationSamples[] {
  const out: OperationSamples[] = [];
  for (const [path, rawItem] of Object.entries<Doc>(doc.paths ?? {})) {
    const item = resolveObject(doc, rawItem) as Doc;
    for (const method of HTTP_METHODS) {
      const op = item[method] as Doc | undefined;
      if (!op) continue;
      const request = sampleRequest(doc, path, method, item, op);
      out.push({
        path,
        method,
        operationId: op.operationId,
        request,
        samples: [
          { lang: 'Shell', label: 'curl', source: curlSample(request) },
          { lang: 'TypeScript', label: 'TypeScript', source: typeScriptSample(request) },
        ],
      });
    }
  }
  return out;
}
