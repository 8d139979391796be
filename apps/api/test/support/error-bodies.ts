import { expect } from 'vitest';

/**
 * Every error body carries the id of its request (`request_id`, the `x-request-id` header's
 * value), different on every call. Stories compare the seed's fields of an error: when one
 * side of a comparison is an error body with `request_id` and the other one without it,
 * the id is left out. `request-ids.test.ts` checks the id itself.
 */
function isErrorBody(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Record<string, unknown>).error === 'string' &&
    ('message' in value || 'validation_errors' in value || 'error_description' in value)
  );
}

function withoutRequestId({ request_id: _, ...rest }: Record<string, unknown>): Record<string, unknown> {
  return rest;
}

expect.addEqualityTesters([
  function errorBodiesApartFromTheirRequestId(a, b, customTesters) {
    if (!isErrorBody(a) || !isErrorBody(b) || 'request_id' in a === 'request_id' in b) return undefined;
    return this.equals(withoutRequestId(a), withoutRequestId(b), customTesters);
  },
]);
