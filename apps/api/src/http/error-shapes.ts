import { HttpError, oauthError } from '../errors.js';
import type { RouteDefinition } from './route-definition.js';

/** The shape an operation's errors are answered in when not the common one (its `x-error-shape`). */
export type ErrorShape = NonNullable<RouteDefinition['errorShape']>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's `x-error-shape`, when its errors have a shape of their own. */
    errorShape?: ErrorShape;
  }
}

/** What a 400 in the common shape says, in words: its message, or each field and what is wrong with it. */
function describe(error: HttpError): string {
  const body = error.body;
  if ('validation_errors' in body) return body.validation_errors.map((item) => `${item.key} ${item.message}`).join('; ');
  return 'message' in body ? body.message : body.error_description;
}

/**
 * An error as the route's shape answers it. `oauth` (the token exchange, RFC 6749 §5.2):
 * a 400 of the common shape (a body that failed validation or could not be read) becomes
 * `invalid_request` saying what was wrong; the exchange's own errors are OAuth already; the
 * edge's answers (408, 413, 415, 429, 5xx...) keep the common shape, as documented.
 */
export function inShape(error: HttpError, shape: ErrorShape | undefined): HttpError {
  if (shape !== 'oauth' || error.statusCode !== 400 || 'error_description' in error.body) return error;
  return oauthError('invalid_request', describe(error));
}
