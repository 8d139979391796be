import type { Handlers } from '../../generated/handlers.js';

export const getOpenApiDocument: Handlers['getOpenApiDocument'] = async (_input, ctx) => ({
  status: 200,
  body: ctx.services.openApiDocument,
  contentType: 'application/yaml; charset=utf-8',
});
