import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import { launchBrowser, watchedPage } from '../support/browser.js';
import { createPatient } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, waitForDelivery, type Receiver } from '../support/webhook-receiver.js';

/**
 * An integrator in a real browser: signs in to the dashboard with the sandbox key, points the
 * sandbox endpoint at a receiver, sends a test event, sees a real event's delivery with its
 * attempt, redelivers it and sees the new attempt. No script, nothing from another host.
 */
let t: TestApp;
let browser: Browser;
let receiver: Receiver;
let acme: NewCustomer;
beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_POLL_MS: '50' });
  receiver = await startReceiver();
  acme = await t.customer('Acme Health');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

/** Submits a form by its button and waits for the page it leads to. */
async function submit(page: Page, button: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(button)]);
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

describe('the customer dashboard', () => {
  it('signs in, sets the endpoint, sends a test event, shows deliveries with their attempts and redelivers', async () => {
    const { page, problems } = await watchedPage(browser, t.baseUrl);
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${t.baseUrl}/dashboard`, { waitUntil: 'networkidle0' });
    await page.type('#api_key', acme.sandbox_api_key);
    await submit(page, 'form.sign-in button');
    expect(page.url()).toBe(`${t.baseUrl}/dashboard?env=sandbox`);
    expect(await text(page, 'h1')).toBe('Sandbox');

    // The endpoint: its secret is shown once, on the answer.
    await page.type('#url', receiver.url);
    await submit(page, 'form.set-url button');
    const secret = await text(page, '#secret');
    expect(secret).toMatch(/^whsec_/);
    await submit(page, 'a[href="/dashboard?env=sandbox"]');
    expect(await text(page, '#endpoint-url')).toBe(receiver.url);
    expect(await page.content()).not.toContain(secret);

    // A test event of a chosen type.
    await page.select('#callback_type', 'SHIPMENT');
    await submit(page, 'form.test button');
    expect(await text(page, '.notice')).toMatch(/Test SHIPMENT event msg_\w+: delivered, HTTP 200/);
    expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ callback_type: 'SHIPMENT', test: true });

    // A real event: the sandbox prescriber sends a prescription (NOTIFY_RX), delivered at once.
    const patient = await createPatient(t, acme.sandbox_api_key);
    const sent = await t.client(acme.sandbox_api_key).POST('/v1/sandbox/electronic_prescriptions', { body: { patient_token: patient } });
    expect(sent.response.status).toBe(201);
    const event = await t.database.handle.db.selectFrom('events').select('id').where('customer_id', '=', acme.customer_id).executeTakeFirstOrThrow();
    await waitForDelivery(t.database.handle.db, event.id, 'delivered');
    await page.reload({ waitUntil: 'networkidle0' });
    const item = `li.event[data-event-id="${event.id}"]`;
    expect(await text(page, `${item} .type`)).toBe('NOTIFY_RX');
    expect(await page.$$eval(`${item} tr.attempt`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(2, 4).map((c) => c.textContent)))).toEqual([['delivered', 'HTTP 200']]);

    // Redelivered: a fresh delivery, a second attempt listed first.
    await submit(page, `${item} form button`);
    expect(await text(page, '.notice')).toContain(`Event ${event.id} is scheduled for redelivery.`);
    for (let i = 0; ; i++) {
      const attempts = await t.database.handle.db.selectFrom('webhook_delivery_attempts').select('id').where('event_id', '=', event.id).execute();
      if (attempts.length === 2) break;
      if (i > 200) throw new Error('the redelivery was not attempted');
      await new Promise((r) => setTimeout(r, 25));
    }
    await page.reload({ waitUntil: 'networkidle0' });
    const rows = await page.$$eval(`${item} tr.attempt`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => [r[0], r[2], r[3]])).toEqual([
      ['1', 'delivered', 'HTTP 200'],
      ['1', 'delivered', 'HTTP 200'],
    ]);
    expect(await page.content()).not.toContain(acme.sandbox_api_key);

    await page.screenshot({ path: '/tmp/dashboard.png', fullPage: true });
    expect(problems).toEqual({ console: [], failedRequests: [], foreignRequests: [] });
  });
});
