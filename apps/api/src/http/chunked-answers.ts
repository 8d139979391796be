import type { JsonSchema } from './json-schema.js';

/** A compiled serializer of one schema (fast-json-stringify's). */
export type Serialize = (data: unknown) => string;
/** Compiles a serializer for a schema that may reference the contract (`contract#/...`). */
export type CompileSerializer = (schema: JsonSchema) => Serialize;

/**
 * An answer is written item by item (chunkedAnswer) when its array's first item serialized,
 * times its items, comes to this many characters. Below it the whole answer's serializer is
 * faster (items of 130 characters, in a loop: 117 against 225 µs at 300 items, even at 500,
 * 602 against 500 µs at 800, 2,423 against 892 at 2,000).
 */
export const CHUNKED_MIN_CHARS = 64 * 1024;
/** Arrays shorter than this are not looked at (an item's serialization is spent on the estimate). */
const MIN_ITEMS = 32;
/** Characters gathered before a piece of the answer is written out. */
const PIECE_CHARS = 32 * 1024;
/** `$ref` chains followed to find an answer's array; the contract's are one or two long. */
const MAX_REFS = 8;
/** Keywords beside a `$ref` that change nothing of what is serialized. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'default', '$comment']);
/** Keywords that make an object's serialization more than its listed properties: such answers are written whole. */
const COMPOSITE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependentSchemas', 'unevaluatedProperties', 'propertyNames', 'prefixItems', 'discriminator'];
const CONTRACT_PREFIX = 'contract#/';
const PLAIN_NAME = /^[A-Za-z0-9_.-]+$/;

interface Located {
  schema: JsonSchema;
  /** Where it is, as a `$ref` the serializer compiler resolves (`contract#/components/...`). */
  ref: string;
}

/**
 * A large answer written in pieces. fast-json-stringify joins an answer from some ten pieces
 * a field, and writing it makes V8 copy those tens of thousands of pieces into one flat
 * string: one over 128 KB is allocated in pages of its own, fresh from the system, whose
 * first touch faults each page in. A month's schedule (860 KB) spent half of its time there
 * (Fastify's `Buffer.byteLength` of it 30%, the socket's write of the string 24%), more than
 * computing and serializing the slots. So an answer whose array comes to CHUNKED_MIN_CHARS
 * or more is serialized item by item, each with the array's item serializer, and every
 * PIECE_CHARS characters written into one buffer, which is what is
 * sent: the same bytes as the whole answer's serializer makes (the fields around the array
 * by serializers of their own, in the schema's order), without the large flat string.
 *
 * For schemas that are an array, or an object with one array property and nothing that
 * adds fields beyond its listed properties (COMPOSITE, `additionalProperties` other than
 * false); undefined for any other, whose answers are serialized whole.
 */
export function chunkedAnswer(routeSchema: JsonSchema, contract: JsonSchema, compile: CompileSerializer): ((data: unknown, whole: Serialize) => string | Buffer) | undefined {
  const answer = located(routeSchema, contract);
  if (!answer || !plain(answer.schema)) return undefined;
  if (answer.schema.type === 'array') {
    const items = itemsOf(answer);
    if (!items) return undefined;
    const item = lazy(() => compile({ $ref: items }));
    return (data, whole) => {
      const first = Array.isArray(data) ? large(data, item) : undefined;
      return first === undefined ? whole(data) : written('[', data as unknown[], first, item(), ']');
    };
  }
  if (answer.schema.type !== 'object') return undefined;
  const properties = answer.schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return undefined;
  const names = Object.keys(properties);
  if (!names.every((name) => PLAIN_NAME.test(name))) return undefined;
  const arrays = names.filter((name) => located({ $ref: `${answer.ref}/properties/${name}` }, contract)?.schema.type === 'array');
  if (arrays.length !== 1) return undefined;
  const name = arrays[0]!;
  const items = itemsOf(located({ $ref: `${answer.ref}/properties/${name}` }, contract)!);
  if (!items) return undefined;
  const at = names.indexOf(name);
  const required = Array.isArray(answer.schema.required) ? (answer.schema.required as string[]) : [];
  const fieldsOf = (listed: string[]) =>
    listed.length === 0
      ? undefined
      : lazy(() =>
          compile({
            type: 'object',
            properties: Object.fromEntries(listed.map((field) => [field, { $ref: `${answer.ref}/properties/${field}` }])),
            required: required.filter((field) => listed.includes(field)),
            additionalProperties: false,
          }),
        );
  const before = fieldsOf(names.slice(0, at));
  const after = fieldsOf(names.slice(at + 1));
  const item = lazy(() => compile({ $ref: items }));
  const key = JSON.stringify(name);
  return (data, whole) => {
    const list = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[name] : undefined;
    const first = Array.isArray(list) ? large(list, item) : undefined;
    if (first === undefined) return whole(data);
    const head = before?.()(data).slice(1, -1);
    const tail = after?.()(data).slice(1, -1);
    return written(`{${head ? `${head},` : ''}${key}:[`, list as unknown[], first, item(), `]${tail ? `,${tail}` : ''}}`);
  };
}

/**
 * `head`, the items serialized and separated by commas, `tail`, written into one buffer a
 * piece at a time: each piece is written as soon as it is gathered, so its many small
 * strings are garbage by the next collection instead of live ones it must copy. The buffer
 * is sized from the first piece's bytes an item, and grows when the items run longer.
 */
function written(head: string, items: readonly unknown[], first: string, item: Serialize, tail: string): Buffer {
  let out: Buffer | undefined;
  let offset = 0;
  const put = (piece: string, itemsSoFar: number) => {
    const bytes = Buffer.byteLength(piece);
    if (!out) out = Buffer.allocUnsafe(Math.ceil((bytes / Math.max(1, itemsSoFar)) * items.length * 1.1) + bytes + tail.length * 3);
    if (offset + bytes > out.length) {
      const grown = Buffer.allocUnsafe(Math.max(out.length * 2, offset + bytes + tail.length * 3));
      out.copy(grown, 0, 0, offset);
      out = grown;
    }
    offset += out.write(piece, offset, 'utf8');
  };
  let piece = head;
  for (let i = 0; i < items.length; i++) {
    piece += i === 0 ? first : `,${item(items[i])}`;
    if (piece.length >= PIECE_CHARS) {
      put(piece, i + 1);
      piece = '';
    }
  }
  put(piece + tail, items.length);
  return out!.subarray(0, offset);
}

/** The first item serialized, when the array's answer comes to CHUNKED_MIN_CHARS by it; else undefined. */
function large(items: readonly unknown[], item: () => Serialize): string | undefined {
  if (items.length < MIN_ITEMS) return undefined;
  const first = item()(items[0]);
  return first.length * items.length >= CHUNKED_MIN_CHARS ? first : undefined;
}

/** The schema a `$ref` chain ends at (annotations beside a `$ref` allowed), and where it is. */
function located(schema: JsonSchema, contract: JsonSchema): Located | undefined {
  let ref: string | undefined;
  let at = schema;
  for (let i = 0; i < MAX_REFS; i++) {
    const next = at.$ref;
    if (typeof next !== 'string') return ref ? { schema: at, ref } : undefined;
    if (!Object.keys(at).every((keyword) => keyword === '$ref' || ANNOTATIONS.has(keyword) || keyword.startsWith('x-'))) return undefined;
    ref = next.startsWith('#/') ? `contract${next}` : next;
    if (!ref.startsWith(CONTRACT_PREFIX)) return undefined;
    const found = pointed(contract, ref.slice(CONTRACT_PREFIX.length));
    if (!found) return undefined;
    at = found;
  }
  return undefined;
}

/** The value at a JSON pointer's path (`components/schemas/X/properties/y`), when it is a schema. */
function pointed(root: JsonSchema, path: string): JsonSchema | undefined {
  let at: unknown = root;
  for (const step of path.split('/')) {
    const key = step.replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as JsonSchema) : undefined;
}

/** Whether a schema's serialization is its own type's and listed properties' alone. */
function plain(schema: JsonSchema): boolean {
  if (COMPOSITE.some((keyword) => keyword in schema)) return false;
  return schema.additionalProperties === undefined || schema.additionalProperties === false;
}

/** The `$ref` of an array schema's items, when they are one schema. */
function itemsOf(array: Located): string | undefined {
  if (!plain({ ...array.schema, additionalProperties: undefined })) return undefined;
  const items = array.schema.items;
  return items !== null && typeof items === 'object' && !Array.isArray(items) ? `${array.ref}/items` : undefined;
}

function lazy<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
