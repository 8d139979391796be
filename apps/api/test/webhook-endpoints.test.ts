import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { sendWebhook } from '../src/webhook-endpoints/webhook-sender.js';
import { Keyring, keyIdOf, loadKeyring } from '../src/crypto/keyring.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { AddressPolicy } from '../src/webhook-endpoints/url-policy.js';
import { parse } from 'yaml';
import { webhookBodyProblems } from './support/event-schemas.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { expectedSignature, startReceiver, TEST_SECRETS_KEY, type Receiver } from './support/webhook-receiver.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{32}$/;

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_POLL_MS: '50' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function put(key: string, url: unknown, options?: { alias?: boolean }) {
  return t.client(key, options).PUT('/v1/webhook_endpoint', { body: { url } as never });
}

describe('setting the webhook endpoint', () => {
  it('answers the secret once, when the endpoint is made; reads show only a hint', async () => {
    const acme = await t.customer();
    const before = await t.client(acme.sandbox_api_key).GET('/v1/webhook_endpoint');
    expect(before.response.status).toBe(404);
    expect(before.error).toMatchObject({ message: 'Unable to find Webhook Endpoint.' });

    const created = await put(acme.sandbox_api_key, receiver.url);
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ url: receiver.url, secret: expect.stringMatching(SECRET) });
    const secret = created.data!.secret!;
    expect(created.data!.secret_hint).toBe(`${secret.slice(0, 10)}…`);

    const read = await t.client(acme.sandbox_api_key).GET('/v1/webhook_endpoint');
    expect(read.data).toEqual({
      url: receiver.url,
      secret_hint: created.data!.secret_hint,
      status: 'enabled',
      disabled_at: null,
      disabled_reason: null,
      created_at: created.data!.created_at,
      updated_at: created.data!.updated_at,
    });

    const changed = await put(acme.sandbox_api_key, `${receiver.url}/v2`);
    expect(changed.data).not.toHaveProperty('secret');
    expect(changed.data).toMatchObject({ url: `${receiver.url}/v2`, secret_hint: created.data!.secret_hint, created_at: created.data!.created_at });
  });

  it('stores the secret encrypted: the row holds neither the secret nor its base64 key', async () => {
    const acme = await t.customer();
    const { data } = await put(acme.sandbox_api_key, receiver.url);
    const rows = await t.database.handle.db.selectFrom('webhook_endpoints').selectAll().where('customer_id', '=', acme.customer_id).execute();
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows[0]);
    expect(text).not.toContain(data!.secret!);
    expect(text).not.toContain(data!.secret!.slice('whsec_'.length));
    const key = Buffer.from(TEST_SECRETS_KEY, 'base64');
    expect(rows[0]!.secret_encrypted).toMatch(new RegExp(`^v2:${keyIdOf(key)}:`));
    // It opens with the server key, bound to its column and owner.
    const box = new SecretBox(() => new Keyring(key));
    expect(box.open(rows[0]!.secret_encrypted, `webhook_endpoints.secret_encrypted:${acme.customer_id}:sandbox`)).toBe(data!.secret);
    expect(() => box.open(rows[0]!.secret_encrypted, `webhook_endpoints.secret_encrypted:${acme.customer_id}:production`)).toThrow('does not open');
  });

  it('keeps one endpoint per environment', async () => {
    const acme = await t.customer();
    await put(acme.sandbox_api_key, receiver.url);
    expect((await t.client(acme.production_api_key).GET('/v1/webhook_endpoint')).response.status).toBe(404);
    const other = await t.customer();
    expect((await t.client(other.sandbox_api_key).GET('/v1/webhook_endpoint')).response.status).toBe(404);
  });

  it('accepts a form-encoded body and the /api/v1 alias', async () => {
    const acme = await t.customer();
    const form = await t.raw('PUT', '/v1/webhook_endpoint', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: receiver.url }).toString(),
    });
    expect(form.status).toBe(200);
    expect(form.json.secret).toMatch(SECRET);
    const alias = await t.client(acme.sandbox_api_key, { alias: true }).GET('/v1/webhook_endpoint');
    expect(alias.data?.url).toBe(receiver.url);
  });

  it.each([
    [undefined, 'is required'],
    ['', 'is not allowed to be empty'],
    ['not a url', 'must be a valid http or https URL'],
    ['ftp://files.example.com/hook', 'must be a valid http or https URL'],
    ['https://user:pass@hooks.example.com/', 'must not contain a user name or password'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'length must be'],
  ])('refuses url %j with a 400 on url', async (url, message) => {
    const acme = await t.customer();
    const { response, error } = await put(acme.sandbox_api_key, url);
    expect(response.status).toBe(400);
    expect((error as any).validation_errors).toEqual([{ key: 'url', message: expect.stringContaining(message) }]);
    expect((await t.client(acme.sandbox_api_key).GET('/v1/webhook_endpoint')).response.status).toBe(404);
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://[::1]/hook',
    'https://10.1.2.3/',
    'http://169.254.169.254/',
    'http://[fd00::1]/',
    // IPv6 forms that embed a private IPv4 address, and documentation ranges
    'http://[::127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:a9fe:a9fe::]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[64:ff9b:1:7f00:0:100::]/',
    'http://192.0.2.10/',
    'http://[2001:db8::1]/',
    'http://[3fff::1]/',
  ])(
    'refuses production endpoint %s on a non-public address; the sandbox may use it',
    async (url) => {
      const acme = await t.customer();
      const production = await put(acme.production_api_key, url);
      expect(production.response.status).toBe(400);
      expect((production.error as any).validation_errors).toEqual([
        { key: 'url', message: 'must not target a loopback, private or link-local address in production' },
      ]);
      expect((await put(acme.sandbox_api_key, url)).response.status).toBe(200);
    },
  );

  it('answers 401 without a valid key', async () => {
    expect((await t.client('nope').GET('/v1/webhook_endpoint')).response.status).toBe(401);
  });
});

describe('private production endpoints allowed by the operator', () => {
  it('accepts 127.0.0.1 in production with WEBHOOK_ALLOW_PRIVATE_URLS=true', async () => {
    const allowed = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    try {
      const acme = await allowed.customer();
      const { response } = await allowed.client(acme.production_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
      expect(response.status).toBe(200);
    } finally {
      await allowed.close();
    }
  });
});

describe('rotating the secret and testing the endpoint', () => {
  let acme: NewCustomer;
  let secret: string;
  beforeAll(async () => {
    acme = await t.customer();
    secret = (await put(acme.sandbox_api_key, receiver.url)).data!.secret!;
  });

  it('sends a signed test request and answers how it went', async () => {
    receiver.answer = () => 200;
    const count = receiver.received.length;
    const { data, response } = await t.client(acme.sandbox_api_key).POST('/v1/webhook_endpoint/test');
    expect(response.status).toBe(200);
    expect(data).toEqual({ delivered: true, status_code: 200, webhook_id: expect.stringMatching(/^msg_/), callback_type: 'NOTIFY_RX' });
    const request = receiver.received[count]!;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe(data!.webhook_id);
    // With no body, a NOTIFY_RX event: the spec's first example, now, marked as a test.
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ callback_type: 'NOTIFY_RX', test: true, details: { prescription_token: expect.any(String) } });
    expect(Math.abs(body.timestamp - Number(request.headers['webhook-timestamp']))).toBeLessThanOrEqual(1);
    expect(webhookBodyProblems('NOTIFY_RX', body)).toEqual([]);
    expect(request.headers['webhook-signature']).toBe(
      expectedSignature(secret, data!.webhook_id, request.headers['webhook-timestamp'] as string, request.body),
    );
  });

  it('sends a realistic event of every type the caller picks, valid against its webhook schema', async () => {
    receiver.answer = () => 200;
    const types = (parse(t.app.services.openApiDocument.text) as any).components.schemas.CallbackType.enum as string[];
    expect(types.length).toBeGreaterThan(20);
    for (const callbackType of types) {
      const count = receiver.received.length;
      const { data, response } = await t.client(acme.sandbox_api_key).POST('/v1/webhook_endpoint/test', { body: { callback_type: callbackType as 'ORDER' } });
      expect(response.status).toBe(200);
      expect(data).toMatchObject({ delivered: true, callback_type: callbackType });
      const body = JSON.parse(receiver.received[count]!.body);
      expect(body).toMatchObject({ callback_type: callbackType, test: true });
      expect(webhookBodyProblems(callbackType, body)).toEqual([]);
    }
    // Form data works as JSON does, and nothing is recorded as an event.
    const form = await t.raw('POST', '/v1/webhook_endpoint/test', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'callback_type=SHIPMENT' });
    expect(form.json).toMatchObject({ delivered: true, callback_type: 'SHIPMENT' });
    const events = await t.client(acme.sandbox_api_key).GET('/v1/webhook_events');
    expect(JSON.stringify(events.data)).not.toContain('"test":true');
  });

  it('refuses a type that is not an event type', async () => {
    const res = await t.raw('POST', '/v1/webhook_endpoint/test', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/json' }, body: JSON.stringify({ callback_type: 'ORDERS' }) });
    expect(res.status).toBe(400);
    expect(res.json.validation_errors).toEqual([expect.objectContaining({ key: 'callback_type' })]);
  });

  it('answers delivered false with the receiver status when it fails, and null when it does not answer', async () => {
    receiver.answer = () => 503;
    const failed = await t.client(acme.sandbox_api_key).POST('/v1/webhook_endpoint/test');
    expect(failed.data).toMatchObject({ delivered: false, status_code: 503 });
    receiver.answer = () => 'hang';
    const timedOut = await t.client(acme.sandbox_api_key).POST('/v1/webhook_endpoint/test');
    expect(timedOut.data).toMatchObject({ delivered: false, status_code: null });
    receiver.answer = () => 200;
  });

  it('rotates: the new secret is answered once and signs from then on', async () => {
    const rotated = await t.client(acme.sandbox_api_key).POST('/v1/webhook_endpoint/rotate_secret');
    expect(rotated.response.status).toBe(200);
    const fresh = rotated.data!.secret!;
    expect(fresh).toMatch(SECRET);
    expect(fresh).not.toBe(secret);
    expect((await t.client(acme.sandbox_api_key).GET('/v1/webhook_endpoint')).data).toMatchObject({ secret_hint: `${fresh.slice(0, 10)}…` });

    const count = receiver.received.length;
    const { data } = await t.client(acme.sandbox_api_key).POST('/v1/webhook_endpoint/test');
    const request = receiver.received[count]!;
    const signed = [data!.webhook_id, request.headers['webhook-timestamp'] as string, request.body] as const;
    expect(request.headers['webhook-signature']).toBe(expectedSignature(fresh, ...signed));
    expect(request.headers['webhook-signature']).not.toBe(expectedSignature(secret, ...signed));
  });

  it('answers 404 to rotate and test without an endpoint', async () => {
    const other = await t.customer();
    expect((await t.client(other.sandbox_api_key).POST('/v1/webhook_endpoint/rotate_secret')).response.status).toBe(404);
    expect((await t.client(other.sandbox_api_key).POST('/v1/webhook_endpoint/test')).response.status).toBe(404);
  });
});

describe('address rules', () => {
  const addresses = AddressPolicy.load(loadConfig({}).webhooks.specialRangesFile);

  it.each([
    ['127.0.0.1', true],
    ['10.0.0.8', true],
    ['172.16.5.4', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['2606:4700::1111', false],
  ])('%s is non-public: %s', (address, expected) => {
    expect(addresses.isNonPublic(address)).toBe(expected);
  });

  it('refuses a private target at delivery time too (literal address and a name that resolves to one)', async () => {
    for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost')]) {
      const result = await sendWebhook({ url, id: 'msg_x', body: '{}', secret: 'whsec_AAAA', timeoutMs: 500, publicOnly: addresses });
      expect(result).toMatchObject({ delivered: false, statusCode: null });
    }
  });
});

describe('the server key', () => {
  it('is generated once beside the embedded database file, mode 0600, when SECRETS_KEY is unset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-key-'));
    try {
      const config = { secretsKey: undefined, previousSecretsKeys: [], databaseUrl: join(dir, 'pharmacy.db') };
      const key = loadKeyring(config).current.key;
      expect(key).toHaveLength(32);
      const file = join(dir, 'secrets.key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(key)).toBe(true);
      expect(loadKeyring(config).current.key.equals(key)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is required on PostgreSQL when a secret must be stored', () => {
    expect(() => loadKeyring({ secretsKey: undefined, previousSecretsKeys: [], databaseUrl: 'postgres://db/pharmacy' })).toThrow('SECRETS_KEY is required');
  });

  it.each([
    [{ SECRETS_KEY: 'short' }, 'SECRETS_KEY must be the base64 of 32'],
    [{ WEBHOOK_RETRY_SCHEDULE: '0,5x' }, 'WEBHOOK_RETRY_SCHEDULE must be'],
    [{ WEBHOOK_RETRY_SCHEDULE: '0,1,2,3,4,5,6,7,8' }, 'WEBHOOK_RETRY_SCHEDULE must be'],
    [{ WEBHOOK_TIMEOUT_MS: '0' }, 'WEBHOOK_TIMEOUT_MS must be'],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_URLS must be'],
  ])('stops at boot on a bad value: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads the retry schedule as durations', () => {
    expect(loadConfig({}).webhooks.retryScheduleMs).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0, 50ms ,2s' }).webhooks.retryScheduleMs).toEqual([0, 50, 2000]);
  });
});
