import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { validationFailed, type ValidationErrorItem } from '../errors.js';
import type { JsonSchema } from './json-schema.js';

/**
 * Request validation from the spec's own schemas, with failures worded as the seed words
 * them (`is required`, `is not allowed to be empty`, `is not allowed`), and every other
 * failure naming what is expected: the spec's `x-expected` words for a patterned schema
 * (`must be a date as YYYYMMDD`), the allowed values of an enum. `verbose` gives each error
 * its schema, where those words are read.
 */
function makeAjv(coerceTypes: boolean | 'array', contract: JsonSchema): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes, useDefaults: false, verbose: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(contract);
  return ajv;
}

export type Validator = (data: unknown) => void;
export type ValidatorCompiler = (schema: JsonSchema, source: 'json' | 'text') => Validator;

/**
 * Compiles validators over the contract's components (read on first use). JSON bodies keep
 * their types; query strings, paths and form bodies arrive as text and are coerced to the
 * schema's types.
 */
export function createValidatorCompiler(contract: () => JsonSchema): ValidatorCompiler {
  // Ajv and each validator are built when first used: compiling every operation's schemas
  // up front took most of the service's start (and its memory), for operations a process
  // may never serve.
  const ajvs: Partial<Record<'json' | 'text', Ajv2020>> = {};
  const ajvFor = (source: 'json' | 'text') => (ajvs[source] ??= makeAjv(source === 'json' ? false : 'array', contract()));
  const compiled = new Map<string, Validator>();
  return (schema, source) => {
    const key = `${source}:${JSON.stringify(schema)}`;
    let validator = compiled.get(key);
    if (!validator) {
      let validate: ValidateFunction | undefined;
      validator = (data) => {
        validate ??= ajvFor(source).compile(schema);
        if (!validate(data)) throw validationFailed(describeErrors(validate.errors ?? [], data));
      };
      compiled.set(key, validator);
    }
    return validator;
  };
}

function keyOf(error: ErrorObject, child?: string): string {
  const parts = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.length ? parts.join('.') : 'body';
}

function valueAt(data: unknown, instancePath: string): unknown {
  return instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>((acc, key) => (acc && typeof acc === 'object' ? (acc as Record<string, unknown>)[key] : undefined), data);
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** The keywords whose failure means "not of the expected form": one `must be <x-expected>` answers any of them. */
const FORM_KEYWORDS = new Set(['pattern', 'format', 'minLength', 'maxLength']);

/** The spec's words for the form a failing schema expects (`x-expected`), if it has them. */
function expectedOf(error: ErrorObject): string | undefined {
  const expected = (error.parentSchema as Record<string, unknown> | undefined)?.['x-expected'];
  return typeof expected === 'string' && expected !== '' ? expected : undefined;
}

/** An enum listed whole while it fits a short message; a long one (138 species) by its first values and its name. */
const ENUM_LISTED_MAX_CHARS = 400;
const ENUM_SAMPLE = 10;

function enumMessage(allowed: unknown[], schema: Record<string, unknown> | undefined): string {
  const values = allowed.map((v) => (v === null ? 'null' : String(v)));
  const all = values.join(', ');
  if (all.length <= ENUM_LISTED_MAX_CHARS) return `must be one of [${all}]`;
  const title = typeof schema?.title === 'string' ? `: see ${schema.title} in the API reference` : '';
  return `must be one of [${values.slice(0, ENUM_SAMPLE).join(', ')}, ...] (${values.length} values${title})`;
}

/**
 * `expected`: the form the value at each key is expected to have, when one of its failures
 * has `x-expected` words: a value that breaks both a length and a pattern hears one message.
 */
function describe(error: ErrorObject, data: unknown, expected: ReadonlyMap<string, string>): ValidationErrorItem {
  const p = error.params as Record<string, any>;
  if (FORM_KEYWORDS.has(error.keyword) && valueAt(data, error.instancePath) !== '') {
    const form = expected.get(keyOf(error));
    if (form) return { key: keyOf(error), message: `must be ${form}` };
  }
  switch (error.keyword) {
    case 'required':
      return { key: keyOf(error, p.missingProperty), message: 'is required' };
    case 'dependentRequired':
      return { key: keyOf(error, p.missingProperty), message: 'is required' };
    case 'additionalProperties':
      return { key: keyOf(error, p.additionalProperty), message: 'is not allowed' };
    case 'minLength':
      return valueAt(data, error.instancePath) === ''
        ? { key: keyOf(error), message: 'is not allowed to be empty' }
        : { key: keyOf(error), message: `length must be at least ${p.limit} characters long` };
    case 'maxLength':
      return { key: keyOf(error), message: `length must be less than or equal to ${p.limit} characters long` };
    case 'pattern':
      return valueAt(data, error.instancePath) === ''
        ? { key: keyOf(error), message: 'is not allowed to be empty' }
        : { key: keyOf(error), message: `fails to match the required pattern: /${p.pattern}/` };
    case 'enum':
      return { key: keyOf(error), message: enumMessage((p.allowedValues as unknown[]) ?? [], error.parentSchema as Record<string, unknown>) };
    case 'const':
      return { key: keyOf(error), message: `must be [${String(p.allowedValue)}]` };
    case 'type': {
      const types = String(p.type).split(',').filter((t) => t !== 'null');
      return { key: keyOf(error), message: `must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(' or ')}` };
    }
    case 'format':
      return valueAt(data, error.instancePath) === ''
        ? { key: keyOf(error), message: 'is not allowed to be empty' }
        : { key: keyOf(error), message: `must be a valid ${p.format}` };
    case 'minimum':
    case 'exclusiveMinimum':
      return { key: keyOf(error), message: `must be greater than ${error.keyword === 'minimum' ? 'or equal to ' : ''}${p.limit}` };
    case 'maximum':
    case 'exclusiveMaximum':
      return { key: keyOf(error), message: `must be less than ${error.keyword === 'maximum' ? 'or equal to ' : ''}${p.limit}` };
    case 'minItems':
      return { key: keyOf(error), message: `must contain at least ${p.limit} items` };
    case 'maxItems':
      return { key: keyOf(error), message: `must contain less than or equal to ${p.limit} items` };
    default:
      return { key: keyOf(error), message: error.message ?? 'is invalid' };
  }
}

/**
 * For a failed `anyOf`/`oneOf`, keeps only the errors of the branches that came closest (fewest
 * errors): for "one pair of fields or the other", a caller who sent half of one pair hears
 * about the missing half, not about the whole other pair; one who sent neither hears about both.
 */
function closestBranches(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const choice of errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) {
    const prefix = `${choice.schemaPath}/`;
    const byBranch = new Map<string, ErrorObject[]>();
    for (const e of kept) {
      if (!e.schemaPath.startsWith(prefix) || e.instancePath !== choice.instancePath && !e.instancePath.startsWith(`${choice.instancePath}/`)) continue;
      const branch = e.schemaPath.slice(prefix.length).split('/')[0]!;
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
    }
    if (byBranch.size < 2) continue;
    const fewest = Math.min(...[...byBranch.values()].map((b) => b.length));
    const dropped = new Set([...byBranch.values()].filter((b) => b.length > fewest).flat());
    kept = kept.filter((e) => !dropped.has(e));
  }
  return kept;
}

/** A branch of `anyOf`/`oneOf` that is a set of fields to send together (`required: [a, b]`), as written. */
function requiredSet(branch: unknown): string[] | undefined {
  const required = (branch as { required?: unknown } | null)?.required;
  return Array.isArray(required) && required.length > 0 && required.every((r) => typeof r === 'string') ? required : undefined;
}

/**
 * Alternatives of required fields (`anyOf: [{required: [a, b]}, {required: [c, d]}]`) of which
 * the caller sent no field at all: instead of "is required" for every field of every alternative, one
 * item on the object, Joi's `must contain at least one of [...]`, naming each alternative
 * (`a with b`). Answers, for each such failed choice, the branch errors it replaces.
 */
function requiredAlternatives(errors: ErrorObject[], data: unknown): Map<ErrorObject, { item: ValidationErrorItem; replaced: Set<ErrorObject> }> {
  const found = new Map<ErrorObject, { item: ValidationErrorItem; replaced: Set<ErrorObject> }>();
  for (const choice of errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) {
    const branches = Array.isArray(choice.schema) ? (choice.schema as unknown[]).map(requiredSet) : [];
    if (branches.length < 2 || branches.some((b) => b === undefined)) continue;
    // A caller who sent part of an alternative hears which fields complete it, as before.
    const object = valueAt(data, choice.instancePath);
    if (object && typeof object === 'object' && (branches as string[][]).flat().some((field) => Object.hasOwn(object, field))) continue;
    const prefix = `${choice.schemaPath}/`;
    const inside = errors.filter((e) => e.schemaPath.startsWith(prefix));
    const failedBranches = new Set(inside.map((e) => e.schemaPath.slice(prefix.length).split('/')[0]));
    if (failedBranches.size < 2 || !inside.every((e) => e.keyword === 'required' && e.instancePath === choice.instancePath)) continue;
    const alternatives = (branches as string[][]).map((fields) => fields.join(' with '));
    found.set(choice, {
      item: { key: keyOf(choice), message: `must contain at least one of [${alternatives.join(', ')}]` },
      replaced: new Set(inside),
    });
  }
  return found;
}

/** The most items a 400 lists (`BadRequestError.validation_errors` has `maxItems: 100`). */
const MAX_VALIDATION_ERRORS = 100;

/** One item per key, in the order the schema reports them, at most 100; composition noise dropped. */
function describeErrors(allErrors: ErrorObject[], data: unknown): ValidationErrorItem[] {
  const items = new Map<string, ValidationErrorItem>();
  const errors = closestBranches(allErrors);
  const expected = new Map<string, string>();
  for (const error of errors) {
    const form = FORM_KEYWORDS.has(error.keyword) ? expectedOf(error) : undefined;
    if (form && !expected.has(keyOf(error))) expected.set(keyOf(error), form);
  }
  // From every branch's errors, before the closest are kept: a caller who sent none hears of every alternative.
  const replacedBy = new Map<ErrorObject, ValidationErrorItem>();
  for (const { item, replaced } of requiredAlternatives(allErrors, data).values()) replaced.forEach((e) => replacedBy.set(e, item));
  for (const error of errors) {
    if (['anyOf', 'oneOf', 'allOf', 'if', 'not'].includes(error.keyword)) continue;
    const item = replacedBy.get(error) ?? describe(error, data, expected);
    if (!items.has(item.key)) items.set(item.key, item);
  }
  if (items.size === 0 && errors[0]) items.set('body', describe(errors[0], data, expected));
  return [...items.values()].slice(0, MAX_VALIDATION_ERRORS);
}

/**
 * Trims surrounding white space from every string, as the seed trims names, in place: the
 * value is the request's own parse (its JSON body, form body or a copy of its query),
 * shared with nothing. Only a string that changes is written back. Walks with its own stack
 * rather than recursing, so no nesting can exhaust the call stack (bodies are bounded at
 * parse time too: http/body-parsers.ts). Copying the whole tree first cost a fill request's
 * body about 2% of the request's time.
 */
export function trimStrings<T>(value: T): T {
  if (typeof value === 'string') return value.trim() as T;
  const pending: object[] = value && typeof value === 'object' ? [value] : [];
  for (let container = pending.pop(); container; container = pending.pop()) {
    const members = container as Record<string, unknown>;
    for (const key of Object.keys(members)) {
      const child = members[key];
      if (typeof child === 'string') {
        const trimmed = child.trim();
        // defineProperty, not assignment: a `__proto__` key stays a plain data property.
        if (trimmed !== child) Object.defineProperty(members, key, { value: trimmed, writable: true, enumerable: true, configurable: true });
      } else if (child && typeof child === 'object') {
        pending.push(child);
      }
    }
  }
  return value;
}
