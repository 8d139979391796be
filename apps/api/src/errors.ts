/**
 * The one error module. Every failure the service answers is an HttpError built by one
 * of these factories, rendered by the error handler in the seed's JSON error shapes.
 */
export interface ValidationErrorItem {
  key: string;
  message: string;
}

/** The error codes of the OAuth 2.0 token exchange (RFC 6749 §5.2) this service answers. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope' | 'access_denied';

/** An error of the token exchange, in the shape OAuth 2.0 clients parse. */
export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

/** An error of the auto-refill operations, in their envelope (AutoRefillError). */
export interface AutoRefillErrorBody {
  code: number;
  err: true;
  data: { timestamp: string; status: 'unsuccessful'; details: { message: string; validation_errors?: ValidationErrorItem[] } };
}

/** An error of the scheduled fill request and action operations (ScheduledError): a code as a string and a message. */
export interface ScheduledErrorBody {
  statusCode: '0001' | '0002' | '0003' | '0004';
  message: string;
  validation_errors?: ValidationErrorItem[];
}

type ErrorBody =
  | { statusCode: number; error: string; message: string }
  | { statusCode: 400; error: 'Bad Request'; validation_errors: ValidationErrorItem[] }
  | OAuthErrorBody
  | AutoRefillErrorBody
  | ScheduledErrorBody;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request');
}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    /** Response headers the answer carries (`WWW-Authenticate`...). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super('message' in body ? body.message : 'data' in body ? body.data.details.message : 'validation_errors' in body ? `${body.validation_errors.length} validation error(s)` : body.error_description);
    this.name = 'HttpError';
  }
}

/**
 * A lifecycle action the record's state does not allow (the transfer is no longer pending,
 * the order was delivered...), or an unknown record. Staff see it from the admin commands
 * and the sandbox's simulated pharmacy ends a lifecycle on it; it is never an HTTP answer.
 * `code` is stable; the message names tokens only.
 */
export class LifecycleError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'NOT_PENDING' | 'INVALID',
    message: string,
  ) {
    super(message);
    this.name = 'LifecycleError';
  }
}

/** The record a lifecycle action acts on: refused as NOT_FOUND, naming it (`Transfer <token>`), when missing. */
export function existing<Row>(row: Row | undefined, what: string): Row {
  if (!row) throw new LifecycleError('NOT_FOUND', `${what} not found.`);
  return row;
}

/** The realm every `WWW-Authenticate` challenge names. */
export const REALM = 'pharmacy';

function withMessage(statusCode: number, message: string, error = reasonPhrase(statusCode)): HttpError {
  return new HttpError(statusCode, { statusCode, error, message });
}

/** 400 with one item per offending field (seed 7.2). */
export function validationFailed(errors: ValidationErrorItem[]): HttpError {
  return new HttpError(400, { statusCode: 400, error: 'Bad Request', validation_errors: errors });
}

/** 400 for one field, e.g. a business rule on an otherwise valid field. */
export function invalidField(key: string, message: string): HttpError {
  return validationFailed([{ key, message }]);
}

/** 400 for a body that cannot be read at all. */
export function badRequest(message: string): HttpError {
  return withMessage(400, message);
}

/** 400 `Unauthorized` for a record of another customer (seed 7.5). */
export function notOwner(message: string): HttpError {
  return withMessage(400, message, 'Unauthorized');
}

/** 401 for a missing or invalid API key (seed 5.1.2, exact body), naming the scheme expected (RFC 9110 §11.6.1). */
export function invalidApiKey(): HttpError {
  return new HttpError(401, { statusCode: 401, error: 'Unauthorized', message: 'Please Send a Valid Api-Key' }, { 'www-authenticate': `ApiKey realm="${REALM}"` });
}

export function forbidden(message: string): HttpError {
  return withMessage(403, message);
}

export function notFound(message = 'Resource Not Found.'): HttpError {
  return withMessage(404, message);
}

/**
 * 405 for a method the path does not serve; `Allow` lists those it does (RFC 9110 §15.5.6).
 * The methods are the spec's, so the answer reveals nothing the interface document does not.
 */
export function methodNotAllowed(method: string, allowed: readonly string[]): HttpError {
  return new HttpError(
    405,
    { statusCode: 405, error: 'Method Not Allowed', message: `${method} is not allowed on this path; it answers ${allowed.join(', ')}.` },
    { allow: allowed.join(', ') },
  );
}

/** 409 for a request the record's state does not allow now (a disabled webhook endpoint...). */
export function conflict(message: string): HttpError {
  return withMessage(409, message);
}

export function payloadTooLarge(): HttpError {
  return withMessage(413, 'Request body is too large.');
}

/** 400 for a JSON body nested deeper than the service reads (BODY_MAX_DEPTH). */
export function bodyTooDeep(maxDepth: number): HttpError {
  return withMessage(400, `Body nests objects and arrays more than ${maxDepth} levels deep.`);
}

/** 400 for a body with an object or array of more members than the service reads (BODY_MAX_MEMBERS). */
export function bodyTooWide(maxMembers: number): HttpError {
  return withMessage(400, `Body has an object or array of more than ${maxMembers} members.`);
}

/** 414 for a path segment longer than any record id (the router's parameter limit). */
export function uriTooLong(): HttpError {
  return withMessage(414, 'The request path is too long.');
}

/** 431 for request headers (the query string included) over the server's limit; the connection closes. */
export function headersTooLarge(): HttpError {
  return withMessage(431, 'The request line and headers are too large; the query string counts toward the limit.');
}

/** 408 for a request that did not arrive in time (REQUEST_TIMEOUT_MS); the connection closes. */
export function requestTimeout(): HttpError {
  return withMessage(408, 'The request did not arrive in time.');
}

/** 429 for a client over its rate limit; `Retry-After` says when to try again. */
export function tooManyRequests(retryAfterSeconds: number): HttpError {
  return withMessage(429, `Too many requests; retry in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`);
}

export function unsupportedMediaType(contentType: string): HttpError {
  return withMessage(
    415,
    `Unsupported Content-Type: ${contentType.slice(0, 100)}. Send application/json or application/x-www-form-urlencoded.`,
  );
}

/** 409: another request with the same `Idempotency-Key` is still in flight. */
export function idempotencyKeyInUse(): HttpError {
  return withMessage(409, 'A request with this Idempotency-Key is still being processed; retry it later.');
}

/** 422: the `Idempotency-Key` was used with another operation or body. */
export function idempotencyKeyReused(): HttpError {
  return withMessage(422, 'This Idempotency-Key was used with another operation or body.');
}

/** Answered by operations that are in the spec but not implemented yet. */
export function notImplemented(operationId: string): HttpError {
  return withMessage(501, `Operation ${operationId} is not implemented yet.`);
}

/** Answered by operations whose security scheme the service cannot check yet. */
export function unsupportedSecurityScheme(scheme: string): HttpError {
  return withMessage(501, `Authentication with ${scheme} is not implemented yet.`);
}

/** The generic 5xx body: never carries internals. */
export function internalError(): HttpError {
  return withMessage(500, 'An internal server error occurred.');
}


/**
 * 403 for a caller whose access token lacks a scope the operation requires, with the
 * challenge RFC 6750 §3.1 asks for (only bearer tokens carry scopes).
 */
export function insufficientScope(scope: string): HttpError {
  return new HttpError(
    403,
    { statusCode: 403, error: 'Forbidden', message: `The access token lacks the scope ${scope}.` },
    { 'www-authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"` },
  );
}

/**
 * 401 of the platform interfaces (seed 7.4) for a missing or refused bearer token or tenant
 * id; a bearer refusal carries the challenge of RFC 6750 §3 (`invalid_token` when a token was sent).
 */
export function platformUnauthorized(challenge?: 'bearer' | 'invalid_token'): HttpError {
  const body = { statusCode: 401, error: 'Unauthorized', message: 'Authorization missing or invalid' };
  if (!challenge) return new HttpError(401, body);
  const value = challenge === 'invalid_token' ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`;
  return new HttpError(401, body, { 'www-authenticate': value });
}

/** An error of the token exchange in the OAuth 2.0 shape (RFC 6749 §5.2); `invalid_client` invites HTTP Basic. */
export function oauthError(code: OAuthErrorCode, description: string): HttpError {
  const status = code === 'invalid_client' ? 401 : 400;
  const headers: Record<string, string> = { 'cache-control': 'no-store', pragma: 'no-cache' };
  if (code === 'invalid_client') headers['www-authenticate'] = `Basic realm="${REALM}"`;
  return new HttpError(status, { error: code, error_description: description }, headers);
}
