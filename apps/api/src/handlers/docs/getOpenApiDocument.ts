import type { Handlers } from '../../generated/handlers.js';

/** Caches may keep the document but must ask again (with its ETag) before using it. */
const REVALIDATE = 'no-cache';

export const getOpenApiDocument: Handlers['getOpenApiDocument'] = async ({ headers }, ctx) => {
  const document = ctx.services.openApiDocument;
  if (document.isNamedBy(headers['If-None-Match'])) {
    return { status: 304, body: undefined, headers: { etag: document.etag, 'cache-control': REVALIDATE } };
  }
  return {
    status: 200,
    body: document.bytes as unknown as string,
    contentType: 'application/yaml; charset=utf-8',
    headers: { etag: document.etag, 'cache-control': REVALIDATE },
  };
};
