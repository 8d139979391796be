import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether the route's operation may be called without a body (its request body is optional, or it has none). */
    bodyOptional?: boolean;
  }
}
import { parse as parseForm } from 'qs';
import { badRequest, bodyTooDeep, bodyTooWide, validationFailed, type HttpError } from '../errors.js';

/** How much structure a body may have before the schema ever sees it (BODY_MAX_DEPTH, BODY_MAX_MEMBERS). */
export interface BodyShapeLimits {
  bodyLimit: number;
  maxDepth: number;
  maxMembers: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isWhiteSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Measures a JSON text in one pass over its characters, before it is parsed: nesting
 * deeper than `maxDepth`, or an object or array of more than `maxMembers` members, is
 * refused at once. Neither the parser nor the walks after it (trimming, validation) then
 * meet a structure that could exhaust the stack or keep a core busy. The text need not be
 * valid JSON here: `JSON.parse` judges that after.
 */
export function checkJsonShape(text: string, limits: Pick<BodyShapeLimits, 'maxDepth' | 'maxMembers'>): void {
  // members[d]: members counted so far in the open container at depth d (1 once it has content).
  const members: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (isWhiteSpace(c) || c === COLON) continue;
    const depth = members.length;
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      members.pop();
      continue;
    }
    if (c === COMMA) {
      if (depth > 0 && ++members[depth - 1]! > limits.maxMembers) throw bodyTooWide(limits.maxMembers);
      continue;
    }
    // The start of a value or a key: the open container has content.
    if (depth > 0 && members[depth - 1] === 0) members[depth - 1] = 1;
    if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth >= limits.maxDepth) throw bodyTooDeep(limits.maxDepth);
      members.push(0);
    }
  }
}

/** `__proto__` keys are refused, as Fastify's own JSON parser refuses them. */
function refuseProtoKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw badRequest('Body is not valid JSON.');
  return value;
}

/**
 * `JSON.parse`, refusing `__proto__` keys. A text that cannot hold one (no `__proto__` in
 * it, and no `\u` escape that could spell it) is parsed without the reviver, which would be
 * called for every member and cost three times the parse.
 */
function parseJson(text: string): unknown {
  return text.includes('__proto__') || text.includes('\\u') ? JSON.parse(text, refuseProtoKeys) : JSON.parse(text);
}

/** Whether a text is a JSON object or array (measured first, like every JSON body). */
function isJsonStructure(text: string, limits: Pick<BodyShapeLimits, 'maxDepth' | 'maxMembers'>): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    checkJsonShape(trimmed, limits);
    const value = parseJson(trimmed);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/**
 * A JSON document sent as form data, as `curl -d '{...}'` sends it without a Content-Type.
 * Read as a form, it would answer `is required` for every field and refuse the JSON as a key.
 */
function jsonSentAsForm(): HttpError {
  return validationFailed([{ key: 'body', message: 'looks like JSON sent as form data: send Content-Type: application/json' }]);
}

/**
 * The body parsers: JSON, measured before it is parsed, and form data (qs, bracket nesting
 * `prescriber[first_name]=...` to 5 levels; at most `maxMembers` parameters, and items in an array). Nothing else
 * is read: Fastify's default text/plain parser would let other content types through.
 */
export async function registerBodyParsers(app: FastifyInstance, limits: BodyShapeLimits): Promise<void> {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: limits.bodyLimit }, (request, body, done) => {
    const text = body as string;
    if (text === '') {
      // An operation whose body is optional (or that takes none) reads an empty JSON body as
      // no body, as clients that always send the header expect (a bodiless POST /v1/auto-refill/...).
      if (request.routeOptions.config?.bodyOptional) return done(null, undefined);
      return done(badRequest('Body cannot be empty when Content-Type is application/json.'), undefined);
    }
    try {
      checkJsonShape(text, limits);
      done(null, parseJson(text));
    } catch (error) {
      done(error instanceof SyntaxError ? badRequest('Body is not valid JSON.') : (error as Error), undefined);
    }
  });
  await app.register(formbody, {
    bodyLimit: limits.bodyLimit,
    parser: (body) => {
      if (isJsonStructure(body, limits)) throw jsonSentAsForm();
      let parsed: Record<string, unknown>;
      try {
        parsed = parseForm(body, {
          depth: 5,
          arrayLimit: limits.maxMembers,
          parameterLimit: limits.maxMembers,
          throwOnLimitExceeded: true,
          allowPrototypes: false,
        });
      } catch (error) {
        if (error instanceof RangeError) throw bodyTooWide(limits.maxMembers);
        throw error;
      }
      // The same JSON percent-encoded: one key that is JSON, with no value.
      const keys = Object.keys(parsed);
      if (keys.length === 1 && parsed[keys[0]!] === '' && isJsonStructure(keys[0]!, limits)) throw jsonSentAsForm();
      return parsed;
    },
  });
}
