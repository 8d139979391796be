import { expect } from 'vitest';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import { pharmacyEnv } from './lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './test-app.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

export interface SandboxWithReceiver {
  t: TestApp;
  acme: NewCustomer;
  receiver: Receiver;
  /** The sandbox webhook endpoint's signing secret. */
  secret: string;
  close(): Promise<void>;
}

/**
 * An app whose sandbox simulates at once (SANDBOX_STEP_DELAY_MS=0) and retries deliveries
 * quickly, with customer Acme's sandbox webhook endpoint at a local receiver.
 */
export async function startSandboxWithReceiver(): Promise<SandboxWithReceiver> {
  const t = await startTestApp({ ...pharmacyEnv, SANDBOX_STEP_DELAY_MS: '0', WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_POLL_MS: '50' });
  const acme = await t.customer('Acme');
  const receiver = await startReceiver();
  const { data, response } = await t.client(acme.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
  expect(response.status).toBe(200);
  return {
    t,
    acme,
    receiver,
    secret: data!.secret!,
    async close() {
      await receiver.close();
      await t.close();
    },
  };
}
