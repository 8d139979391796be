import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { inShape } from './error-shapes.js';
import {
  HttpError,
  badRequest,
  headersTooLarge,
  internalError,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  reasonPhrase,
  requestTimeout,
  unsupportedMediaType,
  uriTooLong,
} from '../errors.js';

/** Maps whatever was thrown to an HttpError in the seed's shapes; nothing internal leaks. */
function toHttpError(error: unknown, contentType = ''): HttpError {
  if (error instanceof HttpError) return error;
  const e = error as Partial<FastifyError>;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(contentType || 'none');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('Body cannot be empty when Content-Type is application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
      return badRequest('The request path is not a valid URL: a percent-encoded sequence is not UTF-8.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return uriTooLong();
  }
  if (e.statusCode === 400 && (e instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY')) {
    return badRequest('Body is not valid JSON.');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new HttpError(e.statusCode, {
      statusCode: e.statusCode,
      error: reasonPhrase(e.statusCode),
      message: e.statusCode === 400 ? 'The request could not be read.' : reasonPhrase(e.statusCode),
    });
  }
  return internalError();
}

/** The body answered for an error: the seed's fields, and the request's id (the `x-request-id` header's value). */
export function errorBody(error: HttpError, requestId: string): HttpError['body'] & { request_id: string } {
  return { ...error.body, request_id: requestId };
}

/** What may be logged of an unexpected error: no driver `detail` (it can quote row values). */
function loggable(error: unknown): Record<string, unknown> {
  const e = error as Partial<Error & { code: string }>;
  return { type: e?.name, code: e?.code, message: e?.message, stack: e?.stack };
}

/** A 501 is expected of an operation not built yet: a warning without a stack, not an error. */
function logFailure(request: FastifyRequest, error: unknown, httpError: HttpError): void {
  if (httpError.statusCode === 501) request.log.warn({ statusCode: 501, message: httpError.message }, 'not implemented');
  else if (httpError.statusCode >= 500) request.log.error({ err: loggable(error) }, 'request failed');
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const httpError = inShape(toHttpError(error, request.headers['content-type']), request.routeOptions?.config?.errorShape);
  logFailure(request, error, httpError);
  reply.code(httpError.statusCode).header('x-request-id', request.id);
  for (const [name, value] of Object.entries(httpError.headers)) reply.header(name, value);
  return reply.send(errorBody(httpError, request.id));
}

/** A route's URL as the router reads it (`/v1/patient/:patient_token`), as a pattern over request paths. */
function pathPattern(url: string): RegExp {
  const segments = url.split('/').map((segment) => {
    if (segment.startsWith(':')) return '[^/]+';
    if (segment === '*') return '.*';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${segments.join('/')}/?$`);
}

/**
 * The methods each registered path serves, collected as routes are registered (so it
 * knows every route, the operations' and the others'): for a `405` with `Allow` when a
 * path is known but not the method. HEAD is served wherever GET is (Fastify answers it).
 */
function methodsByPath(app: FastifyInstance): (path: string) => string[] {
  const paths = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    const entry = paths.get(route.url) ?? { pattern: pathPattern(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) {
      entry.methods.add(method.toUpperCase());
      if (method.toUpperCase() === 'GET') entry.methods.add('HEAD');
    }
    paths.set(route.url, entry);
  });
  return (path) => {
    const methods = new Set<string>();
    for (const { pattern, methods: served } of paths.values()) if (pattern.test(path)) served.forEach((m) => methods.add(m));
    return [...methods].sort();
  };
}

export function installErrorHandling(app: FastifyInstance): void {
  const allowedMethods = methodsByPath(app);
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  // A known path with a method it does not serve answers 405 and `Allow`; an unknown path 404.
  // Neither authenticates: the methods of a path are in the public interface document, so
  // the 405 reveals nothing a caller without credentials could not read there, and a caller
  // with a mistyped method learns it before fixing its key.
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request.url.split('?')[0]!);
    sendError(request, reply, allowed.length > 0 ? methodNotAllowed(request.method, allowed) : notFound());
  });
}

/**
 * Fastify's `frameworkErrors`: the errors its router meets before any route runs (a path
 * that is not valid percent-encoded UTF-8, a path segment over `maxParamLength`), answered
 * in the seed's shapes like every other error.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(request, reply, error);
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request
 * (headers over Node's limit, a request that did not arrive within REQUEST_TIMEOUT_MS,
 * malformed HTTP). The answer is in the seed's shape, and says `Connection: close`, since
 * the connection is closed after it: a keep-alive client then opens a new one instead of
 * sending its next request into a closed socket.
 */
export function clientErrorHandler(nextRequestId: () => string, log: () => FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const httpError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? headersTooLarge()
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? requestTimeout()
          : badRequest('The request could not be read.');
    const requestId = nextRequestId();
    log().info({ reqId: requestId, code: error.code, statusCode: httpError.statusCode }, 'client error');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(errorBody(httpError, requestId));
    const head = [
      `HTTP/1.1 ${httpError.statusCode} ${reasonPhrase(httpError.statusCode)}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${requestId}`,
      'connection: close',
    ].join('\r\n');
    socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  };
}
