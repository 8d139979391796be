/** The error bodies the API answers, typed from the contract. */
import type { components } from '@pharmacy/contract';

type Schemas = components['schemas'];

/** `400`: validation failures (`validation_errors`) or an unreadable body / another customer's record (`message`). */
export type ValidationErrorBody = Schemas['BadRequestError'];
/** `404` (and other errors with a message, such as `500`). */
export type NotFoundErrorBody = Schemas['ErrorMessage'];
/** `401`: a missing or invalid API key. */
export type UnauthorizedErrorBody = Schemas['UnauthorizedError'];

/** True for a `400` body; `validation_errors` lists the offending fields when the request failed validation. */
export function isValidationError(body: unknown): body is ValidationErrorBody {
  if (!body || typeof body !== 'object') return false;
  const { statusCode, error } = body as Record<string, unknown>;
  return statusCode === 400 && typeof error === 'string';
}

/** `401` of the platform interfaces (consults, schedule, diagnostics, accounts): a missing, invalid, expired or revoked bearer token. */
export type PlatformUnauthorizedErrorBody = Schemas['PlatformUnauthorizedError'];
/** An error of the token exchange (`POST /oauth/token`) in the OAuth 2.0 shape (RFC 6749 §5.2). */
export type OAuthErrorBody = Schemas['OAuthError'];
export type OAuthErrorCode = OAuthErrorBody['error'];

/**
 * The token exchange was refused in the OAuth 2.0 shape: `400` (`invalid_request`,
 * `unsupported_grant_type`, `invalid_scope`, `access_denied`) or `401` (`invalid_client`).
 * These are configuration errors (wrong secret, scope or audience): retrying will not help.
 */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: OAuthErrorCode;
  readonly errorDescription: string;
  readonly requestId: string | undefined;

  constructor(status: number, body: OAuthErrorBody) {
    super(`Token exchange refused (${status} ${body.error}): ${body.error_description}`);
    this.name = 'OAuthError';
    this.status = status;
    this.error = body.error;
    this.errorDescription = body.error_description;
    this.requestId = body.request_id;
  }
}

/**
 * The token exchange failed otherwise: the service's common shape (`{statusCode, error,
 * message}`, e.g. `429` or `500`), an answer that is not an access token, or one that is
 * not JSON (`body` is then the text). Often passing: the next call asks again.
 */
export class TokenExchangeError extends Error {
  readonly requestId: string | undefined;

  constructor(
    readonly status: number,
    readonly body: unknown,
    detail: string,
  ) {
    super(`Token exchange failed (${status}): ${detail}`);
    this.name = 'TokenExchangeError';
    const requestId = (body as { request_id?: unknown } | null)?.request_id;
    this.requestId = typeof requestId === 'string' ? requestId : undefined;
  }
}
