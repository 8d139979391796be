import type { FastifyError, FastifyInstance } from 'fastify';
import {
  HttpError,
  badRequest,
  internalError,
  notFound,
  payloadTooLarge,
  reasonPhrase,
  unsupportedMediaType,
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

/** What may be logged of an unexpected error: no driver `detail` (it can quote row values). */
function loggable(error: unknown): Record<string, unknown> {
  const e = error as Partial<Error & { code: string }>;
  return { type: e?.name, code: e?.code, message: e?.message, stack: e?.stack };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const httpError = toHttpError(error, request.headers['content-type']);
    if (httpError.statusCode >= 500) request.log.error({ err: loggable(error) }, 'request failed');
    reply.code(httpError.statusCode).send(httpError.body);
  });
  app.setNotFoundHandler((_request, reply) => {
    const e = notFound();
    reply.code(404).send(e.body);
  });
}
