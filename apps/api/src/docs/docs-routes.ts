import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);

/**
 * The pages a browser opens: the landing page at `/`, the Redoc reference at `/docs`
 * (rendering the bundled spec served at /v1/open-api/api.yml) and the icon. Everything
 * they load comes from this service, so they work without outside network access.
 */
function asset(name: string): Buffer {
  return readFileSync(new URL(`./${name}`, import.meta.url));
}

/**
 * Redoc's side menu shows an image from Redocly's CDN beside its attribution, whatever the
 * options; the served bundle asks this service for an icon of ours instead.
 */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const LOCAL_LOGO = '/docs/docs-logo.svg';

export function localRedocBundle(bundle: string): string {
  if (!bundle.includes(REDOC_CDN_LOGO)) {
    throw new Error(`redoc.standalone.js no longer loads ${REDOC_CDN_LOGO}: check what a new Redoc requests from outside (apps/api/src/docs/docs-routes.ts)`);
  }
  return bundle.replaceAll(REDOC_CDN_LOGO, LOCAL_LOGO);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Fills `{{name}}` in a page template with HTML-escaped values; a name without a value fails. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {{${name}}}`);
    return escapeHtml(value);
  });
}

/**
 * The interface's version: `info.version` of the bundled spec, read from its `info` block
 * alone (parsing the whole document would add half a second to every start).
 */
export function versionOf(openApiDocument: string): string {
  const info = /^info:\n((?:[ \t]+.*\n|\n)*)/m.exec(openApiDocument)?.[1] ?? '';
  const line = /^ {2}version:(.*)$/m.exec(info)?.[1];
  const version: unknown = line === undefined ? undefined : parse(line);
  return version === undefined || version === null ? 'unknown' : String(version);
}

/** The landing page allows nothing from elsewhere: no scripts at all, its own styles and images only. */
const LANDING_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'";
const CACHED = 'public, max-age=3600';

export function registerDocs(app: FastifyInstance, openApiDocument: string): void {
  const docsPage = asset('docs.html');
  const landingPage = renderTemplate(asset('landing.html').toString('utf8'), { version: versionOf(openApiDocument) });
  const favicon = asset('favicon.svg');
  const docsLogo = asset('docs-logo.svg');
  // Redoc's 1 MB bundle is read when a browser first asks for it, not at every start.
  let redocScript: string | undefined;
  const redoc = () => (redocScript ??= localRedocBundle(readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8')));

  app.get('/', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', LANDING_POLICY).send(landingPage),
  );
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(docsPage));
  app.get('/docs/redoc.standalone.js', async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cache-control', CACHED).send(redoc()),
  );
  app.get(LOCAL_LOGO, async (_request, reply) => reply.type('image/svg+xml').header('cache-control', CACHED).send(docsLogo));
  // The pages link /favicon.svg; browsers and tools that ask for /favicon.ico on their own get the same icon.
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    app.get(path, async (_request, reply) => reply.type('image/svg+xml').header('cache-control', CACHED).send(favicon));
  }
}
