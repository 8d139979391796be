import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);

/** The Redoc page at /docs, rendering the bundled spec served at /v1/open-api/api.yml. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Pharmacy Fulfilment Platform API</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
</head>
<body>
  <redoc spec-url="/v1/open-api/api.yml" hide-download-button="false"></redoc>
  <script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`;

export function registerDocs(app: FastifyInstance): void {
  // Served from the redoc package itself, so the page works without outside network access.
  const redocScript = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'));
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/redoc.standalone.js', async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(redocScript),
  );
}
