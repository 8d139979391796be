/**
 * Checks HTTP responses against the bundled OpenAPI document, so contract tests fail on any
 * answer the spec does not describe. Import from `@pharmacy/contract/testing`.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Middleware } from 'openapi-fetch';
import { parse } from 'yaml';
import { openApiDocumentPath } from './index.js';

export interface ContractResponse {
  method: string;
  /** A full URL or a path (`/api/v1/patient/abc?x=1` is fine). */
  url: string;
  status: number;
  contentType?: string | null;
  /** Parsed JSON for JSON media types, the text otherwise, undefined when empty. */
  body?: unknown;
}

export type ContractProblemKind =
  | 'undocumented-operation'
  | 'undocumented-status'
  | 'undocumented-content-type'
  | 'invalid-body';

export interface ContractProblem {
  kind: ContractProblemKind;
  message: string;
}

type Node = Record<string, any>;
interface Located {
  node: Node;
  /** JSON pointer of `node` in the document, after following `$ref`s. */
  pointer: string;
}

const DOCUMENT_ID = 'pharmacy-openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

let contract: { document: Node; ajv: Ajv2020; routes: Route[] } | undefined;
const validators = new Map<string, ValidateFunction>();

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
}

/** The bundled document, parsed once. */
export function loadOpenApiDocument(): Node {
  return loadContract().document;
}

function loadContract() {
  if (contract) return contract;
  const document = parse(readFileSync(openApiDocumentPath, 'utf8')) as Node;
  // ajv-formats is CommonJS; under NodeNext its default import is the module object.
  const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule.default;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const routes = Object.keys(document.paths ?? {})
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.split(/\{[^}]+\}/).map(escapeRegExp).join('[^/]+')}$`),
      params: (template.match(/\{/g) ?? []).length,
    }))
    // A literal segment wins over a template parameter.
    .sort((a, b) => a.params - b.params);
  contract = { document, ajv, routes };
  return contract;
}

/** Every problem of one response; an empty list means the spec documents it exactly. */
export function validateResponse(response: ContractResponse): ContractProblem[] {
  const { document, routes } = loadContract();
  const method = response.method.toLowerCase();
  const path = stripAlias(new URL(response.url, 'http://contract.invalid').pathname);
  const what = `${response.method.toUpperCase()} ${path}`;
  const route = routes.find((r) => r.pattern.test(path));
  const item = route && follow(document, { node: document.paths[route.template], pointer: `/paths/${escapePointer(route.template)}` });
  const operation = item && METHODS.includes(method) && item.node[method] ? child(document, item, method) : undefined;
  if (!operation) return [{ kind: 'undocumented-operation', message: `${what} is not an operation of the spec` }];

  const responses = operation.node.responses ?? {};
  const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((k) => k in responses);
  if (!statusKey) {
    return [{ kind: 'undocumented-status', message: `${what} answered ${response.status}, documented: ${Object.keys(responses).join(', ')}` }];
  }
  const documented = child(document, child(document, operation, 'responses'), statusKey);
  const content: Node = documented.node.content ?? {};
  const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
  const hasBody = response.body !== undefined && response.body !== '';
  if (Object.keys(content).length === 0) {
    return hasBody ? [{ kind: 'undocumented-content-type', message: `${what} ${response.status} documents no body but answered ${mediaType ?? 'one'}` }] : [];
  }
  const mediaKey = mediaType && Object.keys(content).find((key) => mediaTypeMatches(key, mediaType));
  if (!mediaKey) {
    return [
      {
        kind: 'undocumented-content-type',
        message: `${what} ${response.status} answered ${mediaType ?? 'no content type'}, documented: ${Object.keys(content).join(', ')}`,
      },
    ];
  }
  const media = child(document, child(document, documented, 'content'), mediaKey);
  if (!media.node.schema) return [];
  const validate = schemaValidator(`${media.pointer}/schema`);
  if (validate(response.body)) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => ({
    kind: 'invalid-body' as const,
    message: `${what} ${response.status} body${e.instancePath} ${e.message ?? 'is invalid'}${paramsText(e.params)}`,
  }));
}

/**
 * openapi-fetch middleware that validates every response and throws on any problem, so a test
 * driving a server through the client fails on an undocumented answer.
 */
export function contractMiddleware(): Middleware {
  return {
    async onResponse({ request, response }) {
      const contentType = response.headers.get('content-type');
      const text = await response.clone().text();
      let body: unknown = text === '' ? undefined : text;
      if (text !== '' && contentType && isJson(contentType)) {
        try {
          body = JSON.parse(text);
        } catch {
          throw new Error(`contract: ${request.method} ${request.url} answered ${response.status} with a body that is not JSON`);
        }
      }
      const problems = validateResponse({ method: request.method, url: request.url, status: response.status, contentType, body });
      if (problems.length > 0) {
        throw new Error(`contract: response breaks the spec:\n${problems.map((p) => `- [${p.kind}] ${p.message}`).join('\n')}`);
      }
      return undefined;
    },
  };
}

function schemaValidator(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = loadContract().ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** `/api/v1/...` is the same operation as `/v1/...`. */
function stripAlias(path: string): string {
  return path.startsWith('/api/v1/') || path === '/api/v1' ? path.slice('/api'.length) : path;
}

/** Follows `$ref`s (Path Item, Response, ...) so the pointer names where the content really is. */
function follow(document: Node, located: Located): Located {
  let current = located;
  for (let hops = 0; typeof current.node?.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`contract: $ref loop at ${current.pointer}`);
    const ref: string = current.node.$ref;
    if (!ref.startsWith('#/')) throw new Error(`contract: only local $refs are supported, got ${ref}`);
    const pointer = ref.slice(1);
    const node = pointer
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((acc, key) => acc?.[key], document);
    if (node === undefined) throw new Error(`contract: unresolved $ref ${ref}`);
    current = { node, pointer };
  }
  return current;
}

function child(document: Node, parent: Located, key: string): Located {
  return follow(document, { node: parent.node[key], pointer: `${parent.pointer}/${escapePointer(key)}` });
}

function mediaTypeMatches(documented: string, actual: string): boolean {
  const [type, subtype] = documented.toLowerCase().split('/');
  const [actualType, actualSubtype] = actual.split('/');
  return (type === '*' || type === actualType) && (subtype === '*' || subtype === actualSubtype);
}

function isJson(contentType: string): boolean {
  return /^application\/([\w.-]+\+)?json\b/i.test(contentType.trim());
}

/** Ajv's messages omit these; the others already name what is wrong. */
const TELLING_PARAMS = ['additionalProperty', 'allowedValues', 'allowedValue', 'unevaluatedProperty'];

function paramsText(params: Record<string, unknown>): string {
  const text = TELLING_PARAMS.filter((k) => k in params)
    .map((k) => `${k}: ${JSON.stringify(params[k])}`)
    .join(', ');
  return text ? ` (${text})` : '';
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
