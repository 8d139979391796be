/**
 * What changed between two bundles of the spec, and which changes break integrators
 * (spec/VERSIONING.md). api-smart-diff computes and classifies the changes (it resolves
 * `$ref`s and reads OpenAPI 3.1 schemas); our policy then overrides a few of its
 * classifications, and names each change with an id that CHANGELOG.md can list.
 */
import { apiCompare, type Diff } from 'api-smart-diff';

type Doc = Record<string, any>;
type Segment = string | number;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/** A webhook event becomes a path of its own (not a real path: no path starts with `(`). */
const WEBHOOK_PREFIX = '(webhook)/';

export type Verdict = 'breaking' | 'additive' | 'deprecated' | 'unclassified';

export interface Change {
  /** Stable name of the change's place, as CHANGELOG.md lists it: `GET /v1/patient/{patient_token} response.200.application/json.properties.dob`. */
  id: string;
  verdict: Verdict;
  action: Diff['action'];
  /** The tool's own sentence, or ours where the policy decided otherwise. */
  description: string;
  /** Why the policy overrode the tool's classification, if it did. */
  overridden?: string;
}

/** A local `$ref` (`#/components/parameters/Foo`) resolved in `doc`. */
function resolveRef(doc: Doc, value: any): any {
  let seen = 0;
  while (value && typeof value === 'object' && typeof value.$ref === 'string' && value.$ref.startsWith('#/') && seen++ < 20) {
    value = value.$ref
      .slice(2)
      .split('/')
      .map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node: any, key: string) => node?.[key], doc);
  }
  return value;
}

/**
 * The document as compared: path-level parameters moved into each operation (resolved, so
 * each can be named by `in` and `name`), and each webhook event turned into a path whose
 * `200` response is the payload we send (its body and its headers): for an integrator an
 * event is read like a response, so it follows the response rules.
 */
export function prepare(source: Doc): Doc {
  const doc = structuredClone(source);
  const paths: Doc = {};
  const ownParameters = (item: Doc, op: Doc) => {
    const all = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => resolveRef(doc, p));
    const byKey = new Map<string, Doc>();
    for (const p of all) byKey.set(`${p.in}:${p.name}`, p);
    return [...byKey.values()];
  };
  for (const [path, rawItem] of Object.entries<Doc>(doc.paths ?? {})) {
    const item = resolveRef(doc, rawItem) as Doc;
    const out: Doc = {};
    for (const method of HTTP_METHODS) {
      if (!item[method]) continue;
      const op = { ...item[method] };
      const parameters = ownParameters(item, op);
      if (parameters.length > 0) op.parameters = parameters;
      out[method] = op;
    }
    paths[path] = out;
  }
  for (const [name, rawItem] of Object.entries<Doc>(doc.webhooks ?? {})) {
    const item = resolveRef(doc, rawItem) as Doc;
    const out: Doc = {};
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const body = resolveRef(doc, op.requestBody) as Doc | undefined;
      const headers = Object.fromEntries(
        ownParameters(item, op)
          .filter((p) => p.in === 'header')
          .map((p) => [p.name, { required: Boolean(p.required), schema: p.schema }]),
      );
      out[method] = {
        operationId: op.operationId,
        ...(op.deprecated ? { deprecated: true } : {}),
        responses: { '200': { description: 'The event.', headers, content: body?.content ?? {} } },
      };
    }
    paths[`${WEBHOOK_PREFIX}${name}`] = out;
  }
  doc.paths = paths;
  delete doc.webhooks;
  return doc;
}

/** The types a schema's `type` allows (`'string'` or `['string', 'null']`). */
function typeSet(value: unknown): Set<string> {
  return new Set((Array.isArray(value) ? value : [value]).filter((t): t is string => typeof t === 'string'));
}

/** Which side of the exchange a change is on, from its place in the document. */
function sideOf(path: Segment[]): 'request' | 'response' | 'operation' {
  if (path[0] !== 'paths') return 'operation';
  if (path[3] === 'responses') return 'response';
  if (path[3] === 'requestBody' || path[3] === 'parameters') return 'request';
  return 'operation';
}

/** Parts of the document that tell people, not programs: their changes never break a client. */
function isAnnotationOnly(path: Segment[]): boolean {
  return path.some(
    (segment, i) =>
      typeof segment === 'string' && (segment.startsWith('x-') || segment === 'examples' || segment === 'example') && path[i - 1] !== 'properties',
  );
}

/**
 * Our policy where it differs from the tool's defaults (spec/VERSIONING.md): a response
 * field or enum value that goes away, and a response type that allows something new, break
 * clients that read them; a new enum value in a response does not (clients must tolerate
 * unknown values); a request field that goes away breaks clients that send it.
 */
function policy(diff: Diff): { verdict: Verdict; overridden?: string } | undefined {
  const path = diff.path as Segment[];
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  const side = sideOf(path);
  if (side === 'response' && parent === 'properties' && (diff.action === 'remove' || diff.action === 'rename')) {
    return { verdict: 'breaking', overridden: 'a response field that clients read is gone' };
  }
  if (side === 'response' && parent === 'enum' && typeof last === 'number') {
    if (diff.action === 'add') return { verdict: 'additive', overridden: 'clients tolerate enum values they do not know' };
    return { verdict: 'breaking', overridden: 'a response enum value that clients handle is gone' };
  }
  if (side === 'response' && last === 'type' && diff.action === 'replace') {
    const before = typeSet(diff.before);
    const widened = [...typeSet(diff.after)].some((t) => !before.has(t));
    return widened ? { verdict: 'breaking', overridden: 'a response value may now have a type clients do not expect' } : { verdict: 'additive' };
  }
  if (side === 'request' && parent === 'properties' && (diff.action === 'remove' || diff.action === 'rename')) {
    return { verdict: 'breaking', overridden: 'a request field that clients send is gone' };
  }
  return undefined;
}

function verdictOf(diff: Diff): Verdict | 'annotation' {
  switch (diff.type) {
    case 'breaking':
      return 'breaking';
    case 'non-breaking':
      return 'additive';
    case 'deprecated':
      return 'deprecated';
    case 'annotation':
      return 'annotation';
    default:
      return 'unclassified';
  }
}

/** The value an array index of the diff stands for: the enum value or the required property's name. */
function indexName(diff: Diff, at: number): string {
  const path = diff.path as Segment[];
  const step = path[at - 1];
  if (at === path.length - 1 && (step === 'enum' || step === 'required')) {
    const value = diff.action === 'add' ? diff.after : (diff.before ?? diff.after);
    if (typeof value !== 'object' || value === null) return String(value);
  }
  return String(path[at]);
}

/** The change's id: the operation (`GET /v1/...` or `WEBHOOK NAME`), then where in it. */
export function changeId(diff: Diff, docs: { before: Doc; after: Doc }): string {
  const path = diff.path as Segment[];
  if (path[0] !== 'paths') return path.join('.');
  const route = String(path[1]);
  const method = String(path[2] ?? '');
  const head = route.startsWith(WEBHOOK_PREFIX) ? `WEBHOOK ${route.slice(WEBHOOK_PREFIX.length)}` : `${method.toUpperCase() || 'ANY'} ${route}`;
  const rest = path.slice(3);
  if (rest.length === 0) return head;
  const names: string[] = [];
  let i = 3;
  const take = (n: number) => (i += n);
  if (path[i] === 'parameters' && typeof path[i + 1] === 'number') {
    const index = path[i + 1] as number;
    const from = diff.action === 'add' ? [docs.after, docs.before] : [docs.before, docs.after];
    const parameter = from.map((doc) => doc.paths?.[route]?.[method]?.parameters?.[index]).find(Boolean) as Doc | undefined;
    names.push(parameter ? `parameters.${parameter.in}.${parameter.name}` : `parameters.${index}`);
    take(2);
  } else if (path[i] === 'requestBody' && path[i + 1] === 'content' && path[i + 2] !== undefined) {
    names.push(`request.${path[i + 2]}`);
    take(path[i + 3] === 'schema' ? 4 : 3);
  } else if (path[i] === 'responses' && path[i + 1] !== undefined) {
    const status = String(path[i + 1]);
    const webhook = route.startsWith(WEBHOOK_PREFIX);
    const where = webhook ? 'payload' : `response.${status}`;
    if (path[i + 2] === 'content' && path[i + 3] !== undefined) {
      names.push(`${where}.${path[i + 3]}`);
      take(path[i + 4] === 'schema' ? 5 : 4);
    } else if (path[i + 2] === 'headers' && path[i + 3] !== undefined) {
      names.push(`${where}.header.${path[i + 3]}`);
      take(4);
    } else {
      names.push(where);
      take(2);
    }
  } else if (path[i] === 'requestBody') {
    names.push('request');
    take(1);
  }
  for (; i < path.length; i++) names.push(typeof path[i] === 'number' ? indexName(diff, i) : String(path[i]));
  return `${head} ${names.join('.')}`;
}

/** The tool's sentence about a webhook event says "event" where it says "Response 200". */
function wordsFor(route: string, description: string): string {
  if (!route.startsWith(WEBHOOK_PREFIX)) return description;
  const event = route.slice(WEBHOOK_PREFIX.length);
  return description
    .replace(/operation \w+ \(webhook\)\/\S+/, `event ${event}`)
    .replace(/Response 200 (content|headers?)/, `the ${event} event's payload`);
}

/** Every change from `base` to `head` that matters to an integrator, classified by our policy. */
export function compareBundles(base: Doc, head: Doc): Change[] {
  const docs = { before: prepare(base), after: prepare(head) };
  const { diffs } = apiCompare(docs.before, docs.after);
  const changes = new Map<string, Change>();
  for (const diff of diffs) {
    const path = diff.path as Segment[];
    // The components are compared where they are used (the tool resolves every $ref).
    if (path[0] !== 'paths' || isAnnotationOnly(path)) continue;
    const own = policy(diff);
    const verdict = own?.verdict ?? verdictOf(diff);
    if (verdict === 'annotation') continue;
    const id = changeId(diff, docs);
    const key = `${verdict} ${id}`;
    if (changes.has(key)) continue;
    changes.set(key, {
      id,
      verdict,
      action: diff.action,
      description: wordsFor(String(path[1]), diff.description ?? `${diff.action} ${path.join('.')}`),
      ...(own?.overridden ? { overridden: own.overridden } : {}),
    });
  }
  return [...changes.values()].sort((a, b) => a.id.localeCompare(b.id));
}
