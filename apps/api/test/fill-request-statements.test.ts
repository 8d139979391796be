// The statements a submitted fill request sends to PostgreSQL: its patient and prescriptions
// read, the fill of each prescription, and one statement of inserts (the request, its fills
// and the first step of its sandbox lifecycle; Transactor/executeInserts), in a transaction.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cashBody } from './support/fill-request-steps.js';
import { createPatient, insertPrescription } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** pg's query, which every statement a client sends goes through (`submit`), with its text. */
const Query = createRequire(import.meta.url)('pg/lib/query.js') as { prototype: { text?: string; submit: (...args: unknown[]) => unknown } };
const TABLES = /"(patients|prescriptions|fill_requests|fill_request_medications|sandbox_steps)"/;

describe.runIf(process.env.TEST_DATABASE === 'postgres')('a submitted fill request on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reads its records, fills the prescription and inserts everything else in one statement', async () => {
    const customer = await t.customer();
    const patient = await createPatient(t, customer.sandbox_api_key);
    const rx = await insertPrescription(t, { customer_id: customer.customer_id, patient_token: patient });
    const sent: string[] = [];
    const submit = Query.prototype.submit;
    Query.prototype.submit = function (this: { text?: string }, ...args: unknown[]) {
      sent.push(this.text ?? '');
      return submit.apply(this, args);
    };
    let status: number;
    try {
      const res = await t.raw('POST', '/v1/fill_request', {
        headers: { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(cashBody(patient, [rx.token])),
      });
      status = res.status;
    } finally {
      Query.prototype.submit = submit;
    }
    expect(status).toBe(201);
    // The background jobs' polls (`select "id" from "sandbox_steps" ...`) may come in between.
    const own = sent.filter((text) => TABLES.test(text) && !text.startsWith('select "id"'));
    expect(own.map((text) => text.slice(0, 40))).toEqual([
      expect.stringMatching(/^select \* from "patients"/),
      expect.stringMatching(/^select \* from "prescriptions"/),
      expect.stringMatching(/^update "prescriptions"/),
      expect.stringMatching(/^with w0 as \(insert into "fill_requests"/),
    ]);
    const inserts = own.at(-1)!;
    for (const table of ['fill_requests', 'fill_request_medications', 'sandbox_steps']) expect(inserts).toContain(`insert into "${table}"`);
  });
});
