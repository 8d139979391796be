// The statements creates send to PostgreSQL. A submitted fill request: its patient and
// prescriptions read, the fill of each prescription, and one statement of inserts (the
// request, its fills and the first step of its sandbox lifecycle; executeInserts), in a
// transaction sent in one write (an optimistic unit of work: Transactor.runOptimistic). A transfer request: its patient read, then its inserts (the request, its
// medications, its first sandbox step) as one statement without begin/commit (runInserts).
// A lab order (no kit serial yet, so nothing to conflict on): its insert and its panels',
// its event (whose insert judges its delivery: WebhookDeliveryService.attemptingCondition)
// and its first sandbox step, all sent with the commit before any answer
// (db/pipelined-postgres.ts): one round trip.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippingAddress, TESTS } from './support/diagnostic-orders.js';
import { cashBody } from './support/fill-request-steps.js';
import { fromPharmacy } from './support/transfer-request-steps.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { conversation } from './support/pg-conversation.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** pg's query, which every statement a client sends goes through (`submit`), with its text. */
const Query = createRequire(import.meta.url)('pg/lib/query.js') as { prototype: { text?: string; submit: (...args: unknown[]) => unknown; handleReadyForQuery: (...args: unknown[]) => unknown } };
const TABLES = /"(patients|prescriptions|fill_requests|fill_request_medications|sandbox_steps)"/;

/** The texts of the statements sent while `call` ran (the background jobs' among them), and its status. */
async function capturing(call: () => Promise<{ status: number }>): Promise<{ status: number; sent: string[] }> {
  const sent: string[] = [];
  const submit = Query.prototype.submit;
  Query.prototype.submit = function (this: { text?: string }, ...args: unknown[]) {
    sent.push(this.text ?? '');
    return submit.apply(this, args);
  };
  try {
    return { status: (await call()).status, sent };
  } finally {
    Query.prototype.submit = submit;
  }
}

describe.runIf(process.env.TEST_DATABASE === 'postgres')('creates on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a submitted fill request reads its records, then sends its fill, its inserts (one statement) and its commit in one round trip', async () => {
    const customer = await t.customer();
    const patient = await createPatient(t, customer.sandbox_api_key);
    const rx = await insertPrescription(t, { customer_id: customer.customer_id, patient_token: patient });
    const writes = (text = '') => /^(with asserted as \(update|update|with w0 as \(insert into) "(prescriptions|fill_requests)"/.exec(text)?.slice(1).join(' ');
    let said: string[] = [];
    const { status, sent } = await capturing(async () => {
      const traced = await conversation(writes, () =>
        t.raw('POST', '/v1/fill_request', {
          headers: { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(cashBody(patient, [rx.token])),
        }),
      );
      said = traced.said;
      return traced.result;
    });
    expect(status).toBe(201);
    // The background jobs' polls (`select "id" from "sandbox_steps" ...`) may come in between.
    const own = sent.filter((text) => TABLES.test(text) && !text.startsWith('select "id"'));
    // The patient and prescription reads go at once (outside a transaction, each at the end of its turn: key-reads.ts), in either order.
    const [reads, rest] = [own.slice(0, 2).map((text) => text.slice(0, 40)).sort(), own.slice(2).map((text) => text.slice(0, 40))];
    expect(reads).toEqual([expect.stringMatching(/^select \* from "patients"/), expect.stringMatching(/^select \* from "prescriptions"/)]);
    expect(rest).toEqual([
      expect.stringMatching(/^with asserted as \(update "prescriptions"/),
      expect.stringMatching(/^with w0 as \(insert into "fill_requests"/),
    ]);
    const inserts = own.at(-1)!;
    for (const table of ['fill_requests', 'fill_request_medications', 'sandbox_steps']) expect(inserts).toContain(`insert into "${table}"`);
    // The fill (a compare-and-set, asserted to change its row: Transactor.runOptimistic) goes out with the inserts, neither waiting for the other.
    expect(said).toEqual(['> with asserted as (update prescriptions', '> with w0 as (insert into fill_requests', '< with asserted as (update prescriptions', '< with w0 as (insert into fill_requests']);
  });

  it('a transfer request reads its patient, then inserts itself, its medications and its first sandbox step in one statement', async () => {
    const customer = await t.customer();
    const patient = await createPatient(t, customer.sandbox_api_key);
    const { status, sent } = await capturing(() =>
      t.raw('POST', '/v1/transfer_request', {
        headers: { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...fromPharmacy, patient_token: patient }),
      }),
    );
    expect(status).toBe(201);
    const own = sent.filter((text) => /"(patients|transfer_requests|transfer_medications|sandbox_steps)"/.test(text) && !text.startsWith('select "id"'));
    expect(own.map((text) => text.slice(0, 44))).toEqual([expect.stringMatching(/^select \* from "patients"/), expect.stringMatching(/^with w0 as \(insert into "transfer_requests"/)]);
    for (const table of ['transfer_requests', 'transfer_medications', 'sandbox_steps']) expect(own[1]).toContain(`insert into "${table}"`);
  });

  it('a lab order sends itself, its panels, its event and its first sandbox step with the commit, none waiting for another', async () => {
    const customer = await t.customer();
    const patient = await createPatient(t, customer.sandbox_api_key);
    const own = (text = '') => /^(insert into|with w0 as \(insert into) "(diagnostic_orders|diagnostic_order_panels|events|sandbox_steps)"/.exec(text)?.[2];
    const texts: string[] = [];
    const { result, said } = await conversation((text) => (own(text) === 'diagnostic_orders' ? (texts.push(text!), own(text)) : own(text)), () =>
      t.raw('POST', '/diagnostics/v0/orders', {
        headers: { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress }),
      }),
    );
    expect(result.status).toBe(201);
    expect(said.slice(0, 6)).toEqual(['> diagnostic_orders', '> events', '> sandbox_steps', '< diagnostic_orders', '< events', '< sandbox_steps']);
    expect(texts[0]).toMatch(/^with w0 as \(insert into "diagnostic_orders" .* insert into "diagnostic_order_panels"/s);
  });
});
