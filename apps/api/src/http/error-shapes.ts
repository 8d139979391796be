import { now } from '../clock.js';
import { HttpError, oauthError, type ValidationErrorItem } from '../errors.js';
import type { RouteDefinition } from './route-definition.js';

/** The shape an operation's errors are answered in when not the common one (its `x-error-shape`). */
export type ErrorShape = NonNullable<RouteDefinition['errorShape']>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's `x-error-shape`, when its errors have a shape of their own. */
    errorShape?: ErrorShape;
  }
}

/** What an error in the common shape says, in words: its message, or each field and what is wrong with it. */
function describe(error: HttpError): string {
  const body = error.body;
  if ('validation_errors' in body && body.validation_errors) return body.validation_errors.map((item) => `${item.key} ${item.message}`).join('; ');
  if ('data' in body) return body.data.details.message;
  if ('message' in body) return body.message;
  return 'error_description' in body ? body.error_description : error.message;
}

function validationErrors(error: HttpError): { validation_errors?: ValidationErrorItem[] } {
  return 'validation_errors' in error.body && error.body.validation_errors ? { validation_errors: error.body.validation_errors } : {};
}

/** The statuses an operation with its own error shape answers in it; the edge's answers (401, 408, 413, 415, 429...) keep the common shape. */
const SHAPED = new Set([400, 403, 404, 409, 422, 500, 501, 503]);
/** The codes of ScheduledError, by status. */
const SCHEDULED_CODES: Record<number, '0001' | '0002' | '0003' | '0004'> = { 400: '0001', 403: '0002', 404: '0002', 409: '0003', 422: '0001' };

/**
 * An error as the route's shape answers it.
 * - `oauth` (the token exchange, RFC 6749 §5.2): a 400 of the common shape (a body that
 *   failed validation or could not be read) becomes `invalid_request` saying what was
 *   wrong; the exchange's own errors are OAuth already.
 * - `auto-refill`: the real platform's envelope `{code, err: true, data: {timestamp,
 *   status: 'unsuccessful', details: {message}}}`, with the fields that failed validation.
 * - `scheduled`: the real platform's `{statusCode: '0001', message}`.
 * The edge's answers (401, 408, 413, 415, 429...) keep the common shape, as documented.
 */
export function inShape(error: HttpError, shape: ErrorShape | undefined): HttpError {
  if (shape === 'oauth') {
    if (error.statusCode !== 400 || 'error_description' in error.body) return error;
    return oauthError('invalid_request', describe(error));
  }
  if (!shape || !SHAPED.has(error.statusCode)) return error;
  if (shape === 'auto-refill') {
    if ('data' in error.body) return error;
    return new HttpError(
      error.statusCode,
      { code: error.statusCode, err: true, data: { timestamp: now().toISOString(), status: 'unsuccessful', details: { message: describe(error), ...validationErrors(error) } } },
      error.headers,
    );
  }
  if ('statusCode' in error.body && typeof error.body.statusCode === 'string') return error;
  return new HttpError(error.statusCode, { statusCode: SCHEDULED_CODES[error.statusCode] ?? '0004', message: describe(error), ...validationErrors(error) }, error.headers);
}
