import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import { advanceClock, resetClock } from '../src/clock.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { setCookie } from '../src/dashboard/dashboard-security.js';
import { html } from '../src/dashboard/html.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { expectedSignature, recordEvent, startReceiver, waitForDelivery, type Receiver } from './support/webhook-receiver.js';

/**
 * The customer dashboard (/dashboard): a customer signs in with an API key, sets and tests
 * the webhook endpoint of each environment whose key it gave, sees its recent events with
 * every delivery attempt, and redelivers them. Plain HTTP, as a browser without script would.
 */
let t: TestApp;
let receiver: Receiver;
/** The receiver answers this status. */
let answer = 200;
const logs: Record<string, unknown>[] = [];
beforeAll(async () => {
  // Every page here comes from one address: more than its anonymous allowance a minute.
  t = await startTestApp(
    { WEBHOOK_RETRY_SCHEDULE: '0,100ms', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '50', RATE_LIMIT_ANONYMOUS_MAX: '100000' },
    { log: (entry) => logs.push(entry) },
  );
  receiver = await startReceiver(() => answer);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
afterEach(() => {
  resetClock();
  answer = 200;
});

/** A browser of one: its cookies (dashboard paths only), the last page's CSRF token. */
class Browser {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(readonly headers: Record<string, string> = {}) {}

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const response = await fetch(t.baseUrl + path, {
      method,
      redirect: 'manual',
      headers: {
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...this.headers,
        ...headers,
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    return { status: response.status, headers: response.headers, text, setCookies: response.headers.getSetCookie() };
  }

  get(path = '/dashboard') {
    return this.request('GET', path);
  }

  /** Posts a form of the last page (its CSRF token unless given). */
  post(path: string, form: Record<string, string> = {}, headers?: Record<string, string>) {
    return this.request('POST', path, { csrf: this.csrf, ...form }, headers);
  }

  async signIn(apiKey: string) {
    if (!this.csrf) await this.get();
    const answer = await this.post('/dashboard/sign-in', { api_key: apiKey });
    if (answer.status === 303) await this.get(answer.headers.get('location')!);
    return answer;
  }
}

const sandbox = (c: NewCustomer): Owner => ({ customerId: c.customer_id, environment: 'sandbox' });
const endpointOf = (owner: Owner) =>
  t.database.handle.db.selectFrom('webhook_endpoints').selectAll().where('customer_id', '=', owner.customerId).where('environment', '=', owner.environment).executeTakeFirst();

/** The notice shown on the page after a form. */
async function afterPost(browser: Browser, answer: { status: number; headers: Headers }) {
  expect(answer.status).toBe(303);
  return browser.get(answer.headers.get('location')!);
}

describe('signing in', () => {
  it('opens a session in an HttpOnly, SameSite=Strict cookie on /dashboard, and the pages are never cached or framed', async () => {
    const acme = await t.customer('Acme');
    const browser = new Browser();
    const first = await browser.get();
    expect(first.status).toBe(200);
    expect(first.text).toContain('Sign in');
    const answer = await browser.signIn(acme.sandbox_api_key);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/dashboard?env=sandbox');
    const session = answer.setCookies.find((c) => c.startsWith('dashboard_session='))!;
    expect(session).toMatch(/; Path=\/dashboard/);
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Strict/);
    expect(session).toMatch(/; Max-Age=\d+/);
    // Plain http here: a cookie marked Secure would never come back.
    expect(session).not.toMatch(/Secure/);
    // Only the hash of the session id is stored.
    const sessionId = browser.cookies.get('dashboard_session')!;
    const rows = await t.database.handle.db.selectFrom('dashboard_sessions').select('id_hash').execute();
    expect(rows.map((r) => r.id_hash)).not.toContain(sessionId);

    const page = await browser.get();
    expect(page.status).toBe(200);
    expect(page.text).toContain('Webhook endpoint');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('refuses a wrong key with a generic message, opens no session and logs nothing of the key', async () => {
    const browser = new Browser();
    const wrong = 'sk_sandbox_thisIsNotAKeyOfAnyoneAtAll0000';
    const answer = await browser.signIn(wrong);
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('That key was not accepted');
    expect(answer.text).not.toContain(wrong);
    expect(answer.setCookies.some((c) => c.startsWith('dashboard_session='))).toBe(false);
    expect(JSON.stringify(logs)).not.toContain(wrong);
    expect(JSON.stringify(logs)).not.toContain('thisIsNotAKey');
  });

  it('counts refused keys like every refused credential: over the limit, even a right key waits', async () => {
    const limited = await startTestApp({ RATE_LIMIT_AUTH_FAILURES_MAX: '2' });
    try {
      const acme = await limited.customer();
      const sign = async (key: string) => {
        const page = await fetch(`${limited.baseUrl}/dashboard`);
        const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
        const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
        return fetch(`${limited.baseUrl}/dashboard/sign-in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
          body: new URLSearchParams({ csrf, api_key: key }).toString(),
        });
      };
      expect((await sign('sk_sandbox_wrong1')).status).toBe(401);
      expect((await sign('sk_sandbox_wrong2')).status).toBe(401);
      const refused = await sign(acme.sandbox_api_key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await refused.text()).toContain('Too many attempts');
      expect(refused.headers.getSetCookie().some((c) => c.startsWith('dashboard_session='))).toBe(false);
    } finally {
      await limited.close();
    }
  });

  it('answers a missing page and an unknown environment as HTML, not JSON', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    const missing = await browser.get('/dashboard/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    await browser.signIn(acme.sandbox_api_key);
    const unknown = await browser.get('/dashboard?env=staging');
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
    // A form body that is not a form: refused as a page, never a 500.
    const json = await browser.request('POST', '/dashboard/endpoint', undefined, { 'content-type': 'text/plain' });
    expect(json.status).toBe(415);
    expect(json.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('forms', () => {
  it('refuses a post without the CSRF token, with a wrong one, or from another site, and changes nothing', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    const set = { environment: 'sandbox', url: receiver.url };
    const refusals = [
      await browser.request('POST', '/dashboard/endpoint', set),
      await browser.post('/dashboard/endpoint', { ...set, csrf: 'not-the-token' }),
      await browser.post('/dashboard/endpoint', set, { origin: 'https://evil.example' }),
      await browser.post('/dashboard/endpoint', set, { 'sec-fetch-site': 'cross-site' }),
      await browser.post('/dashboard/endpoint', set, { origin: 'null' }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    }
    expect(await endpointOf(sandbox(acme))).toBeUndefined();
    // The same form from this site, with the token, is taken.
    // Under `Referrer-Policy: no-referrer` a browser says `Origin: null` for this site's own forms: Sec-Fetch-Site decides.
    const taken = await browser.post('/dashboard/endpoint', set, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(taken.status).toBe(200);
    expect((await endpointOf(sandbox(acme)))?.url).toBe(receiver.url);
  });

  it('refuses a sign-in form without its double-submitted token', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.get();
    const noCookie = await fetch(`${t.baseUrl}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: browser.csrf, api_key: acme.sandbox_api_key }).toString(),
    });
    expect(noCookie.status).toBe(403);
    const wrongToken = await browser.post('/dashboard/sign-in', { api_key: acme.sandbox_api_key, csrf: 'x'.repeat(43) });
    expect(wrongToken.status).toBe(403);
    expect(browser.cookies.has('dashboard_session')).toBe(false);
  });
});

describe('the session', () => {
  it('ends after 30 minutes unused, and its forms are refused', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    advanceClock(20 * 60_000);
    expect((await browser.get()).text).toContain('Webhook endpoint');
    // Used 20 minutes in: 30 more minutes idle from then.
    advanceClock(25 * 60_000);
    expect((await browser.get()).text).toContain('Webhook endpoint');
    const csrf = browser.csrf;
    advanceClock(31 * 60_000);
    const page = await browser.get();
    expect(page.text).toContain('Sign in');
    expect(page.text).not.toContain('Webhook endpoint');
    const refused = await browser.post('/dashboard/endpoint', { csrf, environment: 'sandbox', url: receiver.url });
    expect(refused.status).toBe(403);
    expect(await endpointOf(sandbox(acme))).toBeUndefined();
  });

  it('ends after 12 hours however much it is used', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    for (let i = 0; i < 25; i++) {
      advanceClock(29 * 60_000);
      await browser.get();
    }
    // 12 h 5 min after signing in.
    expect((await browser.get()).text).toContain('Sign in');
  });

  it('ends on signing out: the cookie is cleared and the old one opens nothing', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    const old = browser.cookies.get('dashboard_session')!;
    const out = await browser.post('/dashboard/sign-out');
    expect(out.status).toBe(303);
    expect(out.setCookies.find((c) => c.startsWith('dashboard_session='))).toMatch(/Max-Age=0/);
    const replay = new Browser();
    replay.cookies.set('dashboard_session', old);
    expect((await replay.get()).text).toContain('Sign in');
  });
});

describe('environments', () => {
  it('a sandbox sign-in cannot see or touch production until the production key is given too', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    const production: Owner = { customerId: acme.customer_id, environment: 'production' };
    expect((await browser.get('/dashboard?env=production')).status).toBe(403);
    for (const [path, form] of [
      ['/dashboard/endpoint', { url: 'https://example.com/hooks' }],
      ['/dashboard/endpoint/rotate-secret', {}],
      ['/dashboard/endpoint/test', { callback_type: 'NOTIFY_RX' }],
      ['/dashboard/events/redeliver', { event_id: 'msg_x' }],
    ] as const) {
      expect((await browser.post(path, { ...form, environment: 'production' })).status).toBe(403);
    }
    expect(await endpointOf(production)).toBeUndefined();

    // The production key from the signed-in page adds production to the same session, under a new id.
    const before = browser.cookies.get('dashboard_session');
    const added = await browser.signIn(acme.production_api_key);
    expect(added.headers.get('location')).toBe('/dashboard?env=production');
    expect(browser.cookies.get('dashboard_session')).not.toBe(before);
    const page = await browser.get('/dashboard?env=production');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Production</h1>');
    expect((await browser.get('/dashboard?env=sandbox')).status).toBe(200);
    const old = new Browser();
    old.cookies.set('dashboard_session', before!);
    expect((await old.get()).text).toContain('Sign in');
  });

  it('a key of another customer starts a new session', async () => {
    const acme = await t.customer();
    const globex = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    await browser.signIn(globex.production_api_key);
    expect((await browser.get('/dashboard?env=sandbox')).status).toBe(403);
    const page = await browser.get('/dashboard?env=production');
    expect(page.text).toContain(globex.production_api_key.slice(0, 14));
    expect(page.text).not.toContain(acme.sandbox_api_key.slice(0, 14));
  });

  it('the pages show keys by prefix, never a whole key', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    await browser.signIn(acme.production_api_key);
    for (const env of ['sandbox', 'production']) {
      const page = await browser.get(`/dashboard?env=${env}`);
      expect(page.text).toContain(acme.sandbox_api_key.slice(0, 14));
      expect(page.text).toContain(acme.production_api_key.slice(0, 14));
      expect(page.text).not.toContain(acme.sandbox_api_key);
      expect(page.text).not.toContain(acme.production_api_key);
      expect(page.text).not.toContain(acme.sandbox_api_key.slice(0, 20));
    }
  });
});

describe('the webhook endpoint', () => {
  it('shows a new signing secret once: on the answer to the form, never on a later page', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    const set = await browser.post('/dashboard/endpoint', { environment: 'sandbox', url: receiver.url });
    expect(set.status).toBe(200);
    expect(set.headers.get('location')).toBeNull();
    expect(set.headers.get('cache-control')).toBe('no-store');
    const first = /<code class="secret" id="secret">(whsec_[^<]+)<\/code>/.exec(set.text)![1]!;

    const rotated = await browser.post('/dashboard/endpoint/rotate-secret', { environment: 'sandbox' });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const secret = /<code class="secret" id="secret">(whsec_[^<]+)<\/code>/.exec(rotated.text)![1]!;
    expect(secret).not.toBe(first);
    const stored = await endpointOf(sandbox(acme));
    expect(stored!.secret_encrypted).not.toContain(secret.slice(6));

    const reload = await browser.get('/dashboard?env=sandbox');
    expect(reload.text).not.toContain(secret);
    expect(reload.text).toContain(secret.slice(0, 10));

    // The secret shown is the one deliveries are signed with.
    const test = await browser.post('/dashboard/endpoint/test', { environment: 'sandbox', callback_type: 'NOTIFY_RX' });
    const after = await afterPost(browser, test);
    expect(after.text).toMatch(/Test NOTIFY_RX event msg_\w+: delivered, HTTP 200/);
    const delivered = receiver.received.at(-1)!;
    const h = delivered.headers as Record<string, string>;
    expect(h['webhook-signature']).toBe(expectedSignature(secret, h['webhook-id']!, h['webhook-timestamp']!, delivered.body));
    expect(JSON.parse(delivered.body)).toMatchObject({ callback_type: 'NOTIFY_RX', test: true });
    // The notice is shown once.
    expect((await browser.get()).text).not.toContain('Test NOTIFY_RX event');
  });

  it('a URL the service refuses is said on the page and changes nothing', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    const page = await afterPost(browser, await browser.post('/dashboard/endpoint', { environment: 'sandbox', url: 'ftp://example.com/<b>' }));
    expect(page.text).toContain('url must be a valid http or https URL');
    expect(await endpointOf(sandbox(acme))).toBeUndefined();
  });

  it('a test event of a type not listed is refused; a failing receiver is reported', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    await browser.post('/dashboard/endpoint', { environment: 'sandbox', url: receiver.url });
    await browser.get();
    const unknown = await afterPost(browser, await browser.post('/dashboard/endpoint/test', { environment: 'sandbox', callback_type: '<script>' }));
    expect(unknown.text).toContain('Choose one of the listed event types');
    expect(unknown.text).not.toContain('<script>');
    answer = 500;
    const failed = await afterPost(browser, await browser.post('/dashboard/endpoint/test', { environment: 'sandbox', callback_type: 'SHIPMENT' }));
    expect(failed.text).toMatch(/Test SHIPMENT event msg_\w+: not delivered, HTTP 500/);
  });

  it('a disabled endpoint is shown with its reason and can be enabled', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    await browser.post('/dashboard/endpoint', { environment: 'sandbox', url: receiver.url });
    await t.database.handle.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_at: new Date().toISOString(), disabled_reason: 'Every attempt failed for 5 days.' })
      .where('customer_id', '=', acme.customer_id)
      .execute();
    const page = await browser.get();
    expect(page.text).toContain('Every attempt failed for 5 days.');
    const enabled = await afterPost(browser, await browser.post('/dashboard/endpoint/enable', { environment: 'sandbox' }));
    expect(enabled.text).toContain('is enabled');
    expect((await endpointOf(sandbox(acme)))!.status).toBe('enabled');
  });
});

describe('events and their delivery attempts', () => {
  it('lists the events newest first with every attempt, and redelivers one', async () => {
    const acme = await t.customer();
    const owner = sandbox(acme);
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    await browser.post('/dashboard/endpoint', { environment: 'sandbox', url: receiver.url });
    // The first attempt fails (HTTP 500), the retry 100 ms later succeeds.
    answer = 500;
    const received = receiver.received.length;
    const older = await recordEvent(t.database.handle.db, owner, 1);
    t.app.services.webhookDelivery.notify();
    await receiver.waitFor(received + 1);
    answer = 200;
    await waitForDelivery(t.database.handle.db, older.id, 'delivered');
    const newer = await recordEvent(t.database.handle.db, owner, 2);
    t.app.services.webhookDelivery.notify();
    await waitForDelivery(t.database.handle.db, newer.id, 'delivered');

    const attempts = await t.database.handle.db.selectFrom('webhook_delivery_attempts').selectAll().where('event_id', '=', older.id).orderBy('attempted_at').execute();
    expect(attempts.map((a) => [Number(a.attempt), a.outcome, a.status_code, a.error_kind])).toEqual([
      [1, 'failed', 500, null],
      [2, 'delivered', 200, null],
    ]);
    expect(attempts.every((a) => Number(a.duration_ms) >= 0 && a.customer_id === acme.customer_id && a.environment === 'sandbox')).toBe(true);

    const page = await browser.get();
    expect(page.text.indexOf(newer.id)).toBeLessThan(page.text.indexOf(older.id));
    const olderItem = page.text.slice(page.text.indexOf(`data-event-id="${older.id}"`));
    expect(olderItem).toMatch(/<td>2<\/td><td><time[^>]*>[^<]+<\/time><\/td><td>delivered<\/td><td>HTTP 200<\/td><td>\d+ ms<\/td>/);
    expect(olderItem).toMatch(/<td>1<\/td><td><time[^>]*>[^<]+<\/time><\/td><td>failed<\/td><td>HTTP 500<\/td>/);

    const redeliver = await afterPost(browser, await browser.post('/dashboard/events/redeliver', { environment: 'sandbox', event_id: older.id }));
    expect(redeliver.text).toContain(`Event ${older.id} is scheduled for redelivery.`);
    await waitForDelivery(t.database.handle.db, older.id, 'delivered');
    const again = await t.database.handle.db.selectFrom('webhook_delivery_attempts').select('attempt').where('event_id', '=', older.id).execute();
    expect(again).toHaveLength(3);
  });

  it('records why an attempt got no answer', async () => {
    const acme = await t.customer();
    const owner = sandbox(acme);
    // A port nothing listens on.
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    await browser.post('/dashboard/endpoint', { environment: 'sandbox', url });
    const event = await recordEvent(t.database.handle.db, owner, 1);
    t.app.services.webhookDelivery.notify();
    await waitForDelivery(t.database.handle.db, event.id, 'failed');
    const page = await browser.get();
    expect(page.text).toContain('<td>connection-refused</td>');
  });

  it('pages through the events, 25 at a time', async () => {
    const acme = await t.customer();
    const owner = sandbox(acme);
    const ids: string[] = [];
    for (let n = 0; n < 27; n++) ids.push((await recordEvent(t.database.handle.db, owner, n)).id);
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    const first = await browser.get();
    const listed = (text: string) => [...text.matchAll(/data-event-id="([^"]+)"/g)].map((m) => m[1]);
    expect(listed(first.text)).toEqual(ids.slice(2).reverse());
    const next = /<a rel="next" href="([^"]+)">/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await browser.get(next);
    expect(listed(second.text)).toEqual(ids.slice(0, 2).reverse());
    expect(second.text).not.toContain('rel="next"');
  });

  it('one customer never sees or redelivers another customer\'s events', async () => {
    const acme = await t.customer();
    const globex = await t.customer();
    const theirs = await recordEvent(t.database.handle.db, sandbox(globex), 1);
    const ours = await recordEvent(t.database.handle.db, sandbox(acme), 2);
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    await browser.post('/dashboard/endpoint', { environment: 'sandbox', url: receiver.url });
    const page = await browser.get();
    expect(page.text).toContain(ours.id);
    expect(page.text).not.toContain(theirs.id);
    // Their event as a page position reads as the first page.
    const paged = await browser.get(`/dashboard?env=sandbox&before=${theirs.id}`);
    expect(paged.text).toContain(ours.id);
    // The delivery worker settles their event on its own (no endpoint: failed, no attempt); after
    // that (or 5 s), only the refused redelivery below could change it.
    const stateOfTheirs = () => t.database.handle.db.selectFrom('events').select(['delivery_status', 'delivery_attempts']).where('id', '=', theirs.id).executeTakeFirstOrThrow();
    for (let waited = 0; waited < 5_000 && (await stateOfTheirs()).delivery_status === 'pending'; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const before = await stateOfTheirs();
    const refused = await afterPost(browser, await browser.post('/dashboard/events/redeliver', { environment: 'sandbox', event_id: theirs.id }));
    expect(refused.text).toContain('Unable to find Webhook Event.');
    expect(await stateOfTheirs()).toEqual(before);
  });
});

describe('the pieces', () => {
  it('escapes every interpolated value, nested lists included, but not markup made by the helper', () => {
    const evil = `"><script>alert('x')</script>&`;
    const page = html`<p title="${evil}">${[evil, html`<b>${evil}</b>`]}${null}${undefined}${false}</p>`.text;
    expect(page).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;' +
        '<b>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</b></p>',
    );
  });

  it('marks the cookie Secure when the request came over https', () => {
    const headers: Record<string, unknown> = {};
    const reply = { getHeader: (name: string) => headers[name], header: (name: string, value: unknown) => (headers[name] = value) };
    setCookie({ protocol: 'https' } as never, reply as never, 'dashboard_session', 'abc', 60);
    expect(headers['set-cookie']).toEqual(['dashboard_session=abc; Path=/dashboard; Max-Age=60; HttpOnly; SameSite=Strict; Secure']);
  });

  it('expired sessions and attempts past their retention are deleted', async () => {
    const acme = await t.customer();
    const browser = new Browser();
    await browser.signIn(acme.sandbox_api_key);
    const owner = sandbox(acme);
    await browser.post('/dashboard/endpoint', { environment: 'sandbox', url: receiver.url });
    const event = await recordEvent(t.database.handle.db, owner, 1);
    t.app.services.webhookDelivery.notify();
    await waitForDelivery(t.database.handle.db, event.id, 'delivered');
    const sessions = () => t.database.handle.db.selectFrom('dashboard_sessions').select('id_hash').where('customer_id', '=', acme.customer_id).execute();
    const attempts = () => t.database.handle.db.selectFrom('webhook_delivery_attempts').select('id').where('event_id', '=', event.id).execute();
    expect(await sessions()).toHaveLength(1);
    expect(await attempts()).toHaveLength(1);
    await t.app.services.deliveryAttempts.prune(Date.now() + 29 * 24 * 3_600_000);
    expect(await attempts()).toHaveLength(1);
    await t.app.services.deliveryAttempts.prune(Date.now() + 31 * 24 * 3_600_000);
    expect(await attempts()).toHaveLength(0);
    await t.app.services.dashboardSessions.prune();
    expect(await sessions()).toHaveLength(1);
    advanceClock(31 * 60_000);
    await t.app.services.dashboardSessions.prune();
    expect(await sessions()).toHaveLength(0);
  });
});
