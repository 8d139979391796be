import type { FastifyInstance } from 'fastify';
import { unsupportedMediaType } from '../errors.js';

/** The types a signed upload may be sent as; the check decides what the bytes really are. */
export const MEDIA_UPLOAD_TYPES = ['image/png', 'image/jpeg', 'application/pdf', 'application/octet-stream'];

/**
 * Reads the raw bytes of a signed upload (`PUT /v1/media/{id}/content`, up to
 * MEDIA_MAX_BYTES, a larger body answering 413). Every other operation refuses these types
 * as before (415): only JSON and form bodies reach them.
 */
export function registerMediaBodyParser(app: FastifyInstance, maxBytes: number): void {
  app.addContentTypeParser(MEDIA_UPLOAD_TYPES, { parseAs: 'buffer', bodyLimit: maxBytes }, (request, body, done) => {
    if (request.routeOptions.config?.operationId !== 'uploadMediaContent') {
      return done(unsupportedMediaType(String(request.headers['content-type'] ?? '')), undefined);
    }
    done(null, body);
  });
}
