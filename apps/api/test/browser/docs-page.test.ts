import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decorateBundle } from '../../../../scripts/codegen/bundle.js';
import { InterfaceDocument } from '../../src/docs/interface-document.js';
import { launchBrowser, watchedPage, type PageProblems } from '../support/browser.js';
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

const NO_PROBLEMS: PageProblems = { console: [], failedRequests: [], foreignRequests: [] };

/** Opens /docs and waits until Redoc has rendered the operations. */
async function openDocs(): Promise<{ page: Page; problems: PageProblems }> {
  const watched = await watchedPage(browser, t.baseUrl);
  await watched.page.goto(`${t.baseUrl}/docs`, { waitUntil: 'networkidle0' });
  await watched.page.waitForSelector('[id="operation/createPatient"]', { timeout: 30_000 });
  return watched;
}

/** The text of an operation's section (Redoc's `operation/<operationId>`). */
function sectionText(page: Page, operationId: string): Promise<string> {
  return page.$eval(`[id="operation/${operationId}"]`, (section) => (section as unknown as Rendered).innerText);
}

describe('the reference at /docs', () => {
  it('renders every operation without a console warning, a failed request or a request elsewhere', async () => {
    const { page, problems } = await openDocs();
    expect(await page.$$eval('[id^="operation/"]', (sections) => sections.length)).toBeGreaterThan(80);
    expect(problems).toEqual(NO_PROBLEMS);
    await page.close();
  });

  it('shows the request samples of an operation: curl and TypeScript, from the spec', async () => {
    const { page, problems } = await openDocs();
    const section = `[id="operation/createPatient"]`;
    const tabs = await page.$$eval(`${section} [role="tab"]`, (items) => items.map((item) => (item as unknown as Rendered).innerText.trim()));
    expect(tabs).toEqual(expect.arrayContaining(['curl', 'TypeScript']));

    await page.$$eval(`${section} [role="tab"]`, (items) => (items.find((item) => (item as unknown as Rendered).innerText.trim() === 'curl') as unknown as Rendered).click());
    expect(await sectionText(page, 'createPatient')).toContain(`curl -X PUT 'http://localhost:3000/v1/patient'`);
    expect(await sectionText(page, 'createPatient')).toContain('Authorization: ApiKey $PHARMACY_API_KEY');

    await page.$$eval(`${section} [role="tab"]`, (items) => (items.find((item) => (item as unknown as Rendered).innerText.trim() === 'TypeScript') as unknown as Rendered).click());
    expect(await sectionText(page, 'createPatient')).toContain(`await pharmacy.PUT('/v1/patient'`);
    expect(problems).toEqual(NO_PROBLEMS);
    await page.close();
  });

  it('shows an operation marked x-not-implemented with a badge and a note, and no other', async () => {
    // The bundle as `pnpm generate` would write it with createPatient marked.
    const marked = parseDocument(t.app.services.openApiDocument.text);
    marked.setIn(['paths', '/v1/patient', 'put', 'x-not-implemented'], true);
    const served = t.app.services.openApiDocument;
    t.app.services.openApiDocument = new InterfaceDocument(decorateBundle(marked.toString({ lineWidth: 0 })));
    try {
      const { page, problems } = await openDocs();
      // Redoc's badge: an element of its own beside the operation's title, holding only the name.
      const badges = (operationId: string) =>
        page.$$eval(`[id="operation/${operationId}"] h2 *`, (nodes) => nodes.filter((node) => (node as unknown as Rendered).innerText?.trim() === 'Not implemented').length);
      expect(await badges('createPatient')).toBe(1);
      expect(await sectionText(page, 'createPatient')).toContain('Not implemented yet. This operation is part of the interface');
      expect(await badges('getPatient')).toBe(0);
      expect(await sectionText(page, 'getPatient')).not.toContain('Not implemented');
      expect(problems).toEqual(NO_PROBLEMS);
      await page.close();
    } finally {
      t.app.services.openApiDocument = served;
    }
  });
});

describe('the static reference built by `pnpm docs`', () => {
  const repoRoot = join(import.meta.dirname, '..', '..', '..', '..');
  const folder = mkdtempSync(join(tmpdir(), 'static-docs-'));
  let server: Server | undefined;
  afterAll(async () => {
    // The browser keeps its connections open: close them, or close() waits for them.
    server?.closeAllConnections();
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    rmSync(folder, { recursive: true, force: true });
  });

  it('loads from its own folder only, with no console warning or failed request, and shows the samples', async () => {
    execFileSync(join(repoRoot, 'node_modules', '.bin', 'tsx'), [join(repoRoot, 'scripts', 'docs.ts'), join(folder, 'index.html')], { cwd: repoRoot, stdio: 'pipe' });
    const types: Record<string, string> = { html: 'text/html; charset=utf-8', svg: 'image/svg+xml' };
    server = createServer((request, response) => {
      const file = join(folder, request.url === '/' ? 'index.html' : new URL(request.url!, 'http://x').pathname.slice(1));
      if (!file.startsWith(folder) || !existsSync(file)) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': types[file.split('.').pop()!] ?? 'application/octet-stream' }).end(readFileSync(file));
    }).listen(0, '127.0.0.1');
    await new Promise((ready) => server!.once('listening', ready));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const { page, problems } = await watchedPage(browser, origin);
    await page.goto(`${origin}/#tag/Patients/operation/createPatient`, { waitUntil: 'networkidle0', timeout: 60_000 });
    await page.waitForFunction(`document.body.innerText.includes('$PHARMACY_API_KEY')`, { timeout: 30_000 });
    expect(await page.$eval('body', (body) => (body as unknown as Rendered).innerText)).toContain(`curl -X PUT 'http://localhost:3000/v1/patient'`);
    expect(problems).toEqual(NO_PROBLEMS);
    await page.close();
  });
});
