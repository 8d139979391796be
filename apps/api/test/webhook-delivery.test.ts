import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { openApiDocumentPath } from '@pharmacy/contract';
import { verifyWebhook } from '@pharmacy/client';
import { buildApp } from '../src/app.js';
import type { Owner } from '../src/auth/principal.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createTestDatabase } from './support/test-database.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import {
  deliveryOf,
  expectedSignature,
  recordEvent,
  startReceiver,
  TEST_SECRETS_KEY,
  waitForDelivery,
  type Receiver,
} from './support/webhook-receiver.js';

const FAST = { SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms', WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_POLL_MS: '50' };

/** Delivered bodies must be events of the spec (`WebhookEvent`). */
const validateEvent = (() => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(parse(readFileSync(openApiDocumentPath, 'utf8')), 'api');
  return ajv.getSchema('api#/components/schemas/WebhookEvent')!;
})();

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp(FAST);
});
afterAll(async () => t?.close());

/** A customer whose sandbox endpoint is the receiver; answers the owner and the secret. */
async function subscribed(receiver: Receiver): Promise<{ owner: Owner; secret: string; apiKey: string }> {
  const customer = await t.customer();
  const { data } = await t.client(customer.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } });
  return { owner: { customerId: customer.customer_id, environment: 'sandbox' }, secret: data!.secret!, apiKey: customer.sandbox_api_key };
}

async function record(owner: Owner, n = 0) {
  const event = await recordEvent(t.database.handle.db, owner, n);
  t.app.services.webhookDelivery.notify();
  return event;
}

describe('delivering an event recorded through the outbox', () => {
  it('POSTs the stored envelope, signed per Standard Webhooks, and records the delivery', async () => {
    const receiver = await startReceiver();
    try {
      const { owner, secret } = await subscribed(receiver);
      const event = await record(owner);
      const [request] = await receiver.waitFor(1);
      expect(request!.body).toBe(event.payload);
      expect(validateEvent(JSON.parse(request!.body))).toBe(true);
      expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': event.id });
      const timestamp = request!.headers['webhook-timestamp'] as string;
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5);
      expect(request!.headers['webhook-signature']).toBe(expectedSignature(secret, event.id, timestamp, request!.body));
      // The client's helper accepts the delivery as a customer would receive it.
      expect(verifyWebhook({ headers: request!.headers as Record<string, string>, body: request!.body, secret })).toEqual(JSON.parse(event.payload));

      const row = await waitForDelivery(t.database.handle.db, event.id, 'delivered');
      expect(row).toMatchObject({ delivery_status_code: 200, delivery_attempts: 1, next_attempt_at: null, locked_until: null });
      expect(row.last_attempt_at).toEqual(expect.any(String));
    } finally {
      await receiver.close();
    }
  });

  it('retries a failing receiver with the same webhook-id until it recovers', async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 500 : 200));
    try {
      const { owner, secret } = await subscribed(receiver);
      const event = await record(owner);
      const requests = await receiver.waitFor(2);
      expect(requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
      expect(requests.map((r) => r.body)).toEqual([event.payload, event.payload]);
      for (const r of requests) {
        expect(r.headers['webhook-signature']).toBe(expectedSignature(secret, event.id, r.headers['webhook-timestamp'] as string, r.body));
      }
      expect(await waitForDelivery(t.database.handle.db, event.id, 'delivered')).toMatchObject({ delivery_status_code: 200, delivery_attempts: 2 });
    } finally {
      await receiver.close();
    }
  });

  it('marks the event failed after the last attempt of the schedule, with the last status', async () => {
    const receiver = await startReceiver(() => 503);
    try {
      const { owner } = await subscribed(receiver);
      const event = await record(owner);
      const row = await waitForDelivery(t.database.handle.db, event.id, 'failed');
      expect(row).toMatchObject({ delivery_status_code: 503, delivery_attempts: 3, next_attempt_at: null, locked_until: null });
      expect(receiver.received).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });

  it('counts a receiver that does not answer within the timeout as a failure (status_code null)', async () => {
    const receiver = await startReceiver((n) => (n === 0 ? 'hang' : 200));
    try {
      const { owner } = await subscribed(receiver);
      const event = await record(owner);
      await receiver.waitFor(1);
      const retrying = await waitForDelivery(t.database.handle.db, event.id, 'retrying');
      expect(retrying).toMatchObject({ delivery_status_code: null, delivery_attempts: 1 });
      expect(await waitForDelivery(t.database.handle.db, event.id, 'delivered')).toMatchObject({ delivery_attempts: 2, delivery_status_code: 200 });
    } finally {
      await receiver.close();
    }
  });

  it('marks an event of an environment without endpoint failed with 0 attempts', async () => {
    const customer = await t.customer();
    const event = await record({ customerId: customer.customer_id, environment: 'production' });
    expect(await waitForDelivery(t.database.handle.db, event.id, 'failed')).toMatchObject({
      delivery_attempts: 0,
      delivery_status_code: null,
      last_attempt_at: null,
      next_attempt_at: null,
    });
  });

  it('signs with the rotated secret from then on', async () => {
    const receiver = await startReceiver();
    try {
      const customer = await t.customer();
      const key = customer.sandbox_api_key;
      const first = (await t.client(key).PUT('/v1/webhook_endpoint', { body: { url: receiver.url } })).data!.secret!;
      const second = (await t.client(key).POST('/v1/webhook_endpoint/rotate_secret')).data!.secret!;
      const event = await record({ customerId: customer.customer_id, environment: 'sandbox' });
      const [request] = await receiver.waitFor(1);
      const signed = [event.id, request!.headers['webhook-timestamp'] as string, request!.body] as const;
      expect(request!.headers['webhook-signature']).toBe(expectedSignature(second, ...signed));
      expect(request!.headers['webhook-signature']).not.toBe(expectedSignature(first, ...signed));
    } finally {
      await receiver.close();
    }
  });

  it('resumes after a restart: an expired claim is taken again, a live one is left alone', async () => {
    const receiver = await startReceiver();
    try {
      const { owner } = await subscribed(receiver);
      const db = t.database.handle.db;
      // Claimed by a process that stopped (lock expired) and by one still working (lock ahead).
      const expired = await recordEvent(db, owner, 1, new Date(Date.now() - 60_000).toISOString());
      const live = await recordEvent(db, owner, 2, new Date(Date.now() + 60_000).toISOString());
      t.app.services.webhookDelivery.notify();
      await waitForDelivery(db, expired.id, 'delivered');
      await new Promise((r) => setTimeout(r, 200));
      expect((await deliveryOf(db, live.id)).delivery_status).toBe('pending');
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([expired.id]);
    } finally {
      await receiver.close();
    }
  });

  it('delivers many events in parallel without blocking requests', async () => {
    const receiver = await startReceiver();
    try {
      const { owner, apiKey } = await subscribed(receiver);
      const events = await Promise.all(Array.from({ length: 30 }, (_, n) => record(owner, n)));
      const started = Date.now();
      expect((await t.client(apiKey).GET('/v1/webhook_endpoint')).response.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2000);
      await receiver.waitFor(30);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(events.map((e) => e.id)));
    } finally {
      await receiver.close();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE === 'postgres')('two service processes on one PostgreSQL', () => {
  it('deliver each event once per attempt, never twice', async () => {
    const receiver = await startReceiver();
    const database = await createTestDatabase();
    const second = openDatabase(database.url);
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url, ...FAST, WEBHOOK_CONCURRENCY: '4' });
    const apps = [await buildApp({ config, database: database.handle }), await buildApp({ config, database: second })];
    try {
      const customer = await apps[0]!.services.customers.create('Two processes');
      const owner: Owner = { customerId: customer.customer_id, environment: 'sandbox' };
      await apps[0]!.services.webhookEndpoints.set(owner, receiver.url, 'test');
      await Promise.all(apps.map((a) => a.fastify.ready()));
      const N = 60;
      const ids: string[] = [];
      for (let n = 0; n < N; n++) {
        ids.push((await recordEvent(database.handle.db, owner, n)).id);
        apps[n % 2]!.services.webhookDelivery.notify();
      }
      await receiver.waitFor(N, 15_000);
      await new Promise((r) => setTimeout(r, 300));
      const received = receiver.received.map((r) => r.headers['webhook-id'] as string);
      expect(received).toHaveLength(N);
      expect(new Set(received)).toEqual(new Set(ids));
      const rows = await database.handle.db.selectFrom('events').select(['delivery_status', 'delivery_attempts']).execute();
      expect(rows.every((r) => r.delivery_status === 'delivered' && r.delivery_attempts === 1)).toBe(true);
    } finally {
      await Promise.all(apps.map((a) => a.fastify.close()));
      await second.close();
      await database.dispose();
      await receiver.close();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE === 'postgres')('two real service processes (pnpm start) on one PostgreSQL', () => {
  it('both claiming from one outbox, deliver every event to the receiver exactly once', async () => {
    const receiver = await startReceiver();
    const database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, ...FAST, WEBHOOK_CONCURRENCY: '4' };
    const servers: ServerProcess[] = [];
    try {
      // The customer and its endpoint, set through the services on the shared database.
      const setup = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', ...env }), database: database.handle, workers: false });
      const customer = await setup.services.customers.create('Two processes');
      await setup.services.webhookEndpoints.set({ customerId: customer.customer_id, environment: 'sandbox' }, receiver.url, 'test');
      servers.push(await startServerProcess(env), await startServerProcess(env));
      const call = (n: number, path: string, body: unknown) =>
        fetch(servers[n % 2]!.url + path, {
          method: path === '/v1/patient' ? 'PUT' : 'POST',
          headers: { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const patient = ((await (await call(0, '/v1/patient', { first_name: 'Two', last_name: 'Processes', dob: '19800101', gender: 'female' })).json()) as { patient_token: string }).patient_token;
      // Each electronic prescription records a NOTIFY_RX, alternately in each process.
      const N = 40;
      const answers = await Promise.all(
        Array.from({ length: N }, (_, n) => call(n, '/v1/sandbox/electronic_prescriptions', { patient_token: patient, medication_name: `Drug ${n}` })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(N).fill(201));
      await receiver.waitFor(N, 15_000);
      await new Promise((r) => setTimeout(r, 500));
      const recorded = await database.handle.db.selectFrom('events').select(['id', 'delivery_status', 'delivery_attempts']).execute();
      expect(recorded).toHaveLength(N);
      const received = receiver.received.map((r) => r.headers['webhook-id'] as string);
      expect(received.sort()).toEqual(recorded.map((e) => e.id).sort());
      expect(recorded.every((e) => e.delivery_status === 'delivered' && Number(e.delivery_attempts) === 1)).toBe(true);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await database.dispose();
      await receiver.close();
    }
    // Two service processes start (tsx compiles at start): seconds each on a loaded machine.
  }, 60_000);
});

describe('claims', () => {
  it('are taken by one claimant only', async () => {
    const customer = await t.customer();
    const owner: Owner = { customerId: customer.customer_id, environment: 'sandbox' };
    const db = t.database.handle.db;
    const { JobClaims } = await import('../src/db/job-claims.js');
    const { SimpleTransactor } = await import('../src/db/transactor.js');
    const { DELIVERIES } = await import('../src/webhook-deliveries/webhook-delivery-repository.js');
    const jobs = new JobClaims(db, new SimpleTransactor(db), t.database.handle.dialect);
    // Held by another worker: a fresh claim does not take it.
    const event = await recordEvent(db, owner, 0, new Date(Date.now() + 60_000).toISOString());
    const claimed = await jobs.claim(DELIVERIES, 100, 1000);
    expect(claimed.map((c) => c.id)).not.toContain(event.id);
  });
});

describe('waking the worker after a commit', () => {
  it('happens once a unit of work that recorded events commits, not on rollback nor without events', async () => {
    const { UnitsOfWork } = await import('../src/events/unit-of-work.js');
    const { SimpleTransactor } = await import('../src/db/transactor.js');
    const db = t.database.handle.db;
    const customer = await t.customer();
    const owner: Owner = { customerId: customer.customer_id, environment: 'sandbox' };
    let wakes = 0;
    const units = new UnitsOfWork(new SimpleTransactor(db), { committed: () => wakes++ });
    const event = { callbackType: 'NOTIFY_RX', details: {} };

    await units.run('test', (uow) => uow.trx.selectFrom('customers').select('id').execute());
    expect(wakes).toBe(0);
    await expect(
      units.run('test', async (uow) => {
        await uow.emit(owner, event);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(wakes).toBe(0);
    await units.run('test', (uow) => uow.emit(owner, event));
    expect(wakes).toBe(1);
  });
});
