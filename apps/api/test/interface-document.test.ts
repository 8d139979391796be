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
