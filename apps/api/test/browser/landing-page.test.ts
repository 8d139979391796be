import { parse } from 'yaml';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, watchedPage } from '../support/browser.js';
import type { Rendered } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/test-app.js';


let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the landing page at /', () => {
  it('loads without a console warning, a failed request or a request elsewhere, and links what a visitor looks for', async () => {
    const { page, problems } = await watchedPage(browser, t.baseUrl);
    const response = await page.goto(`${t.baseUrl}/`, { waitUntil: 'networkidle0' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");

    const links = await page.$$eval('a', (anchors) => anchors.map((a) => a.getAttribute('href')));
    expect(links).toEqual(['/docs', '/dashboard', '/v1/open-api/api.yml', '/health/live', '/health/ready']);
    const { info } = parse(t.app.services.openApiDocument.text) as { info: { version: string } };
    expect(await page.$eval('#version', (node) => (node as unknown as Rendered).innerText)).toBe(info.version);
    expect(await page.title()).toBe('Pharmacy fulfilment platform API');
    expect(problems).toEqual({ console: [], failedRequests: [], foreignRequests: [] });
    await page.close();
  });

  it('links only addresses the service answers', async () => {
    for (const path of ['/docs', '/dashboard', '/v1/open-api/api.yml', '/health/live', '/favicon.svg', '/favicon.ico']) {
      const response = await fetch(`${t.baseUrl}${path}`, { redirect: 'manual' });
      expect(response.status, path).toBeLessThan(400);
    }
  });
});
