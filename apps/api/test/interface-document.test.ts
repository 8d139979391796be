import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { openApiDocumentPath } from '@pharmacy/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptsGzip } from '../src/docs/interface-document.js';
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
    const res = await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'accept-encoding': 'identity' } });
    const sha256 = createHash('sha256').update(readFileSync(openApiDocumentPath)).digest('base64url');
    expect(res.headers.get('etag')).toBe(`"sha256-${sha256}"`);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(res.headers.get('content-encoding')).toBeNull();
  });

  it('is sent gzip-compressed to a client that accepts gzip, under a tag of its own, and as it is to one that does not', async () => {
    const document = readFileSync(openApiDocumentPath);
    const sha256 = createHash('sha256').update(document).digest('base64url');
    const get = (acceptEncoding?: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((done, fail) => {
        const url = new URL('/v1/open-api/api.yml', t.baseUrl);
        const req = request(url, { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', fail);
        req.end();
      });
    for (const acceptEncoding of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5', '*']) {
      const res = await get(acceptEncoding);
      expect(res.status, acceptEncoding).toBe(200);
      expect(res.headers['content-encoding'], acceptEncoding).toBe('gzip');
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.headers.etag).toBe(`"sha256-${sha256}-gzip"`);
      expect(res.body.length).toBeLessThan(document.length / 4);
      expect(gunzipSync(res.body).equals(document)).toBe(true);
    }
    for (const acceptEncoding of [undefined, 'identity', 'br', 'gzip;q=0', 'gzip;q=0, *']) {
      const res = await get(acceptEncoding);
      expect(res.headers['content-encoding'], acceptEncoding).toBeUndefined();
      expect(res.headers.etag).toBe(`"sha256-${sha256}"`);
      expect(res.body.equals(document)).toBe(true);
    }
  });

  it('reads Accept-Encoding as RFC 9110 does: weights, the x-gzip alias, * for the rest, q=0 refusing', () => {
    for (const yes of ['gzip', 'GZIP', 'x-gzip', 'deflate, gzip', 'gzip;q=0.001', 'gzip ; q=1.0', '*', 'br, *;q=0.1']) expect(acceptsGzip(yes), yes).toBe(true);
    for (const no of [undefined, '', 'identity', 'deflate, br', 'gzip;q=0', 'gzip;q=0.000', '*;q=0', 'gzip;q=0, *', 'gzip;q=x', 'gzipped']) expect(acceptsGzip(no), no).toBe(false);
  });

  it('answers 304 with no body to an If-None-Match that names its version, and 200 otherwise', async () => {
    const etag = (await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'accept-encoding': 'identity' } })).headers.get('etag')!;
    const gzipEtag = (await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'accept-encoding': 'gzip' } })).headers.get('etag')!;
    expect(gzipEtag).toBe(etag.slice(0, -1) + '-gzip"');
    // Either form's tag names the version; the 304 carries the tag of the form the request would get.
    for (const [ifNoneMatch, acceptEncoding, answered] of [
      [gzipEtag, 'identity', etag],
      [etag, 'gzip', gzipEtag],
      [`W/${gzipEtag}`, 'gzip', gzipEtag],
    ]) {
      const res = await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'if-none-match': ifNoneMatch!, 'accept-encoding': acceptEncoding! } });
      expect(res.status, ifNoneMatch).toBe(304);
      expect(res.headers.get('etag')).toBe(answered);
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
    }
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*', ` ${etag} `]) {
      const res = await t.raw('GET', '/v1/open-api/api.yml', { headers: { 'if-none-match': ifNoneMatch, 'accept-encoding': 'identity' } });
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
