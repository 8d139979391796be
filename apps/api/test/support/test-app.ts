import { contractMiddleware, validateResponse } from '@pharmacy/contract/testing';
import { createPharmacyClient, type PharmacyClient } from '@pharmacy/client';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { TEST_TOKEN_SIGNING_KEY } from './test-keys.js';
import { TEST_SECRETS_KEY } from './webhook-receiver.js';

export interface TestApp {
  app: App;
  database: TestDatabase;
  baseUrl: string;
  /** A client for a key, validating every answer against the spec. */
  client(apiKey?: string, options?: { alias?: boolean }): PharmacyClient;
  /** A raw request (for bodies the typed client cannot send), validated against the spec too. */
  raw(method: string, path: string, init?: { headers?: Record<string, string>; body?: string }): Promise<RawResponse>;
  customer(name?: string): Promise<NewCustomer>;
  close(): Promise<void>;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface TestAppOptions {
  /** Receives every log entry the app writes (at LOG_LEVEL, `info` when unset); by default nothing is logged. */
  log?: (entry: Record<string, unknown>) => void;
}

/** The real app on a real database, listening on a loopback port. */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  // The sandbox's simulated pharmacy waits an hour between steps unless a test asks for it
  // (SANDBOX_STEP_DELAY_MS: '0'), so it never changes records other tests assert on. Patients'
  // identifiers, webhook secrets and stored answers are sealed, and access tokens signed: the
  // app has keys of its own, never a `secrets.key` or `token-signing.key` in the working folder.
  const config = loadConfig({
    LOG_LEVEL: options.log ? 'info' : 'silent',
    PORT: '0',
    SANDBOX_STEP_DELAY_MS: '3600000',
    SECRETS_KEY: TEST_SECRETS_KEY,
    TOKEN_SIGNING_KEY: TEST_TOKEN_SIGNING_KEY,
    ...env,
  });
  const log = options.log;
  const logger = log && { level: config.logLevel, stream: { write: (line: string) => log(JSON.parse(line) as Record<string, unknown>) } };
  const app = await buildApp({ config, database: database.handle, ...(logger ? { logger } : {}) });
  await app.fastify.listen({ port: 0, host: '127.0.0.1' });
  const address = app.fastify.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let customers = 0;
  return {
    app,
    database,
    baseUrl,
    client: (apiKey, options) =>
      createPharmacyClient({
        baseUrl: options?.alias ? `${baseUrl}/api` : baseUrl,
        ...(apiKey ? { apiKey } : {}),
        // Each answer is asserted as it came: no retries (the client's own tests cover them).
        retry: false,
        middleware: [contractMiddleware()],
      }),
    async raw(method, path, init = {}) {
      const response = await fetch(baseUrl + path, { method, headers: init.headers, body: init.body });
      const text = await response.text();
      const contentType = response.headers.get('content-type');
      const json = contentType?.includes('json') && text ? JSON.parse(text) : undefined;
      const problems = validateResponse({ method, url: path, status: response.status, contentType, body: json ?? text });
      if (problems.length) throw new Error(`contract: ${problems.map((p) => p.message).join('; ')}`);
      return { status: response.status, headers: response.headers, text, json };
    },
    customer: (name) => app.services.customers.create(name ?? `Customer ${++customers}`),
    async close() {
      await app.fastify.close();
      await database.dispose();
    },
  };
}

/** The app with the two customers most stories need: Acme, whose records they touch, and Globex, who must not see them. */
export async function startTestAppWithCustomers(env: Record<string, string> = {}): Promise<{ t: TestApp; acme: NewCustomer; globex: NewCustomer }> {
  const t = await startTestApp(env);
  const acme = await t.customer('Acme');
  const globex = await t.customer('Globex');
  return { t, acme, globex };
}
