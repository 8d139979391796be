import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/test-app.js';
import { expectedSignature, startReceiver, TEST_SECRETS_KEY, type Receiver } from './support/webhook-receiver.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const SECRET = /^whsec_[A-Za-z0-9+/]{32}$/;

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: TEST_SECRETS_KEY });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

function admin(args: string[]) {
  return run(process.execPath, ['bin/admin.mjs', ...args], {
    cwd: apiRoot,
    env: { ...process.env, DATABASE_URL: t.database.url, SECRETS_KEY: TEST_SECRETS_KEY },
  });
}

describe('pnpm admin webhook commands', () => {
  it('create-customer --webhook-url sets the sandbox endpoint and prints its secret', async () => {
    const { stdout } = await admin(['create-customer', '--name', 'Hooli', '--webhook-url', receiver.url]);
    const created = JSON.parse(stdout);
    expect(Object.keys(created)).toContain('sandbox_webhook_secret');
    expect(created.sandbox_webhook_secret).toMatch(SECRET);

    const { data } = await t.client(created.sandbox_api_key).GET('/v1/webhook_endpoint');
    expect(data).toMatchObject({ url: receiver.url, secret_hint: `${created.sandbox_webhook_secret.slice(0, 10)}…` });
    // The printed secret signs the deliveries.
    const test = await t.client(created.sandbox_api_key).POST('/v1/webhook_endpoint/test');
    const request = receiver.received.at(-1)!;
    expect(request.headers['webhook-signature']).toBe(
      expectedSignature(created.sandbox_webhook_secret, test.data!.webhook_id, request.headers['webhook-timestamp'] as string, request.body),
    );
  });

  it('create-customer refuses a bad --webhook-url before making the customer', async () => {
    await expect(admin(['create-customer', '--name', 'Bad', '--webhook-url', 'ftp://x'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--webhook-url must be a valid http or https URL'),
    });
  });

  it('set-webhook prints the secret when the endpoint is new, and keeps it when the URL changes', async () => {
    const customer = await t.customer();
    const args = ['set-webhook', '--customer', customer.customer_id, '--environment', 'sandbox', '--url', receiver.url];
    const first = JSON.parse((await admin(args)).stdout);
    expect(first).toMatchObject({ customer_id: customer.customer_id, environment: 'sandbox', url: receiver.url, secret: expect.stringMatching(SECRET) });
    const again = JSON.parse((await admin([...args.slice(0, -1), `${receiver.url}/v2`])).stdout);
    expect(again).not.toHaveProperty('secret');
    expect(again).toMatchObject({ url: `${receiver.url}/v2`, secret_hint: first.secret_hint });
  });

  it('set-webhook applies the production address rule and checks its arguments', async () => {
    const customer = await t.customer();
    await expect(admin(['set-webhook', '--customer', customer.customer_id, '--environment', 'production', '--url', receiver.url])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--url must not target a loopback, private or link-local address in production'),
    });
    await expect(admin(['set-webhook', '--customer', customer.customer_id, '--environment', 'staging', '--url', receiver.url])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--environment must be sandbox or production'),
    });
    await expect(admin(['set-webhook', '--customer', 'cus_nope', '--environment', 'sandbox', '--url', receiver.url])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no customer cus_nope'),
    });
  });

  it('enable-webhook enables an endpoint disabled because its deliveries kept failing, and says why it cannot', async () => {
    const customer = await t.customer();
    const owner = { customerId: customer.customer_id, environment: 'sandbox' as const };
    await t.app.services.webhookEndpoints.set(owner, receiver.url, 'test');
    await t.database.handle.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_at: new Date().toISOString(), disabled_reason: 'Every delivery attempt failed.', consecutive_failures: 12 })
      .where('customer_id', '=', customer.customer_id)
      .execute();
    const args = ['enable-webhook', '--customer', customer.customer_id, '--environment', 'sandbox'];
    const enabled = JSON.parse((await admin(args)).stdout);
    expect(enabled).toMatchObject({ customer_id: customer.customer_id, environment: 'sandbox', url: receiver.url, status: 'enabled', disabled_at: null, disabled_reason: null });
    expect((await t.client(customer.sandbox_api_key).GET('/v1/webhook_endpoint')).data).toMatchObject({ status: 'enabled' });

    await expect(admin([...args.slice(0, -1), 'production'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`no production webhook endpoint for customer ${customer.customer_id}`),
    });
    await expect(admin([...args.slice(0, -1), 'staging'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--environment must be sandbox or production') });
    await expect(admin(['enable-webhook', '--environment', 'sandbox'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--customer is required') });
  });
});
