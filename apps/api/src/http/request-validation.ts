import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { validationFailed, type ValidationErrorItem } from '../errors.js';
import type { JsonSchema } from './json-schema.js';

/**
 * Request validation from the spec's own schemas, with failures worded as the seed words
 * them (`is required`, `is not allowed to be empty`, `is not allowed`).
 */
function makeAjv(coerceTypes: boolean | 'array', contract: JsonSchema): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes, useDefaults: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(contract);
  return ajv;
}

export type Validator = (data: unknown) => void;
export type ValidatorCompiler = (schema: JsonSchema, source: 'json' | 'text') => Validator;

/**
 * Compiles validators over the contract's components. JSON bodies keep their types; query
 * strings, paths and form bodies arrive as text and are coerced to the schema's types.
 */
export function createValidatorCompiler(contract: JsonSchema): ValidatorCompiler {
  const strictAjv = makeAjv(false, contract);
  const coercingAjv = makeAjv('array', contract);
  const compiled = new Map<string, Validator>();
  return (schema, source) => {
    const key = `${source}:${JSON.stringify(schema)}`;
    let validator = compiled.get(key);
    if (!validator) {
      const validate: ValidateFunction = (source === 'json' ? strictAjv : coercingAjv).compile(schema);
      validator = (data) => {
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

function describe(error: ErrorObject, data: unknown): ValidationErrorItem {
  const p = error.params as Record<string, any>;
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
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]) ?? [];
      return {
        key: keyOf(error),
        message: allowed.length <= 12 ? `must be one of [${allowed.join(', ')}]` : 'must be one of the allowed values',
      };
    }
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

/** The most items a 400 lists (`BadRequestError.validation_errors` has `maxItems: 100`). */
const MAX_VALIDATION_ERRORS = 100;

/** One item per key, in the order the schema reports them, at most 100; composition noise dropped. */
function describeErrors(allErrors: ErrorObject[], data: unknown): ValidationErrorItem[] {
  const items = new Map<string, ValidationErrorItem>();
  const errors = closestBranches(allErrors);
  for (const error of errors) {
    if (['anyOf', 'oneOf', 'allOf', 'if', 'not'].includes(error.keyword)) continue;
    const item = describe(error, data);
    if (!items.has(item.key)) items.set(item.key, item);
  }
  if (items.size === 0 && errors[0]) items.set('body', describe(errors[0], data));
  return [...items.values()].slice(0, MAX_VALIDATION_ERRORS);
}

/** A shallow copy of a value, strings trimmed; containers are filled in by trimStrings. */
function trimmedCopy(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return [...value];
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value));
  return value;
}

/**
 * Trims surrounding white space from every string, as the seed trims names, into a copy.
 * Walks with its own stack rather than recursing, so no nesting can exhaust the call
 * stack (bodies are bounded at parse time too: http/body-parsers.ts).
 */
export function trimStrings<T>(value: T): T {
  const root = trimmedCopy(value);
  const pending: object[] = root && typeof root === 'object' ? [root] : [];
  for (let container = pending.pop(); container; container = pending.pop()) {
    for (const [key, child] of Object.entries(container)) {
      const copy = trimmedCopy(child);
      // defineProperty, not assignment: a `__proto__` key stays a plain data property.
      Object.defineProperty(container, key, { value: copy, writable: true, enumerable: true, configurable: true });
      if (copy && typeof copy === 'object') pending.push(copy);
    }
  }
  return root as T;
}
