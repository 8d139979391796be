import type { Handlers } from '../../generated/handlers.js';

/** Caches may keep the document but must ask again (with its ETag) before using it. */
const REVALIDATE = 'no-cache';
/** The answer depends on Accept-Encoding (gzip or not): caches keep one copy per value. */
const VARY = 'Accept-Encoding';

export const getOpenApiDocument: Handlers['getOpenApiDocument'] = async ({ headers }, ctx) => {
  const document = ctx.services.openApiDocument;
  const acceptEncoding = headers['Accept-Encoding'];
  if (document.isNamedBy(headers['If-None-Match'])) {
    return { status: 304, body: undefined, headers: { etag: document.etagFor(acceptEncoding), vary: VARY, 'cache-control': REVALIDATE } };
  }
  const { bytes, etag, encoding } = await document.representationFor(acceptEncoding);
  return {
    status: 200,
    body: bytes as unknown as string,
    contentType: 'application/yaml; charset=utf-8',
    headers: { etag, vary: VARY, 'cache-control': REVALIDATE, ...(encoding ? { 'content-encoding': encoding } : {}) },
  };
};
