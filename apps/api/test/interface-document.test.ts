import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openApiDocumentPath } from '@pharmacy/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('the interface description', () => {
  it.each(['/v1/open-api/api.yml', '/api/v1/open-api/api.yml'])('is served at %s without a key, as the bundled YAML', async (path) => {
    const res = await t.raw('GET', path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(res.text).toBe(readFileSync(openApiDocumentPath, 'utf8'));
  });

  it('carries the SHA-256 of its bytes as a strong ETag, and asks caches to revalidate', async () => {
    const res = await t.raw('GET', '/v1/open-api/api.yml');
    const sha256 = createHash('sha256').update(readFileSync(openApiDocumentPath)).digest('base64url');
    expect(res.headers.get('etag')).toBe(`"sha256-${sha256}"`);
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers 304 with no body to an If-None-Match that names its version, and 200 otherwise', async () => {
    const etag = (await t.raw('GET', '/v1/open-api/api.yml')).headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*', ` ${etag} `]) {
      const res = await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'if-none-match': ifNoneMatch } });
      expect(res.status, ifNoneMatch).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
    }
    for (const ifNoneMatch of ['"other"', etag.slice(0, -2) + '"', 'W/"sha256-x", "y,z"']) {
      const res = await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'if-none-match': ifNoneMatch } });
      expect(res.status, ifNoneMatch).toBe(200);
      expect(res.text).toBe(readFileSync(openApiDocumentPath, 'utf8'));
    }
  });

  it('refuses an If-None-Match longer than 1,000 characters in the seed\'s 400 shape', async () => {
    const res = await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'if-none-match': `"${'a'.repeat(1000)}"` } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it('is rendered by the Redoc page at /docs, whose script is served locally', async () => {
    const page = await fetch(`${t.baseUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('spec-url="/v1/open-api/api.yml"');
    const script = await fetch(`${t.baseUrl}/docs/redoc.standalone.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });

  it('answers unknown paths with the seed 404 shape', async () => {
    const res = await fetch(`${t.baseUrl}/v1/no-such-thing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'Resource Not Found.' });
  });
});
