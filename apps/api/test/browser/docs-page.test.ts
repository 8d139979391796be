import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, watchedPage } from '../support/browser.js';
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

describe('the reference at /docs', () => {
  it('renders every operation without a console warning, a failed request or a request elsewhere', async () => {
    const { page, problems } = await watchedPage(browser, t.baseUrl);
    await page.goto(`${t.baseUrl}/docs`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('h1', { timeout: 30_000 });
    console.log(JSON.stringify(problems, null, 1).slice(0, 5000));
    expect(problems).toEqual({ console: [], failedRequests: [], foreignRequests: [] });
  });
});
