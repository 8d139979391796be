import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/**
 * Headless Chromium for the browser tests (Debian's `chromium`; `.ci/run` installs it when
 * missing). CHROMIUM_PATH names another binary.
 */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const found = CANDIDATES.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error('no Chromium found: install Debian\'s `chromium` package or set CHROMIUM_PATH');
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--disable-component-update', '--disable-background-networking'],
  });
}

/** Everything a page did that a clean page must not: console errors and warnings, failed requests, requests to another host. */
export interface PageProblems {
  console: string[];
  failedRequests: string[];
  foreignRequests: string[];
}

/**
 * A new page that records its problems. Every request whose origin is not `allowedOrigin`
 * (`data:` and `blob:` addresses aside) is recorded and aborted, so a test never reaches
 * outside the machine.
 */
export async function watchedPage(browser: Browser, allowedOrigin: string): Promise<{ page: Page; problems: PageProblems }> {
  const page = await browser.newPage();
  const problems: PageProblems = { console: [], failedRequests: [], foreignRequests: [] };
  page.on('console', (message) => {
    const type = message.type();
    if (type === 'error' || type === 'warn') problems.console.push(`${type}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.console.push(`pageerror: ${error instanceof Error ? error.message : String(error)}`));
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === allowedOrigin) {
      void request.continue();
    } else {
      problems.foreignRequests.push(url);
      void request.abort();
    }
  });
  page.on('requestfailed', (request) => {
    if (!problems.foreignRequests.includes(request.url())) problems.failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.failedRequests.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
  });
  return { page, problems };
}

/** What the tests read of a rendered element (the tests compile without the DOM's types). */
export interface Rendered {
  innerText: string;
  click(): void;
}
