import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { eventProblems } from './support/event-schemas.js';
import { createPatient, destination } from './support/fixtures.js';
import { directTransferBody, pharmacyEnv, transferBody } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** Production lifecycles are driven by pharmacy staff through `pnpm admin`. */
const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

let t: TestApp;
let acme: NewCustomer;
beforeAll(async () => {
  t = await startTestApp({ ...pharmacyEnv });
  acme = await t.customer('Acme');
});
afterAll(async () => t?.close());

async function admin(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['bin/admin.mjs', ...args], {
    cwd: apiRoot,
    env: { ...process.env, DATABASE_URL: t.database.url, ...pharmacyEnv },
  });
  const output = JSON.parse(stdout);
  for (const e of output.events ?? []) expect(eventProblems(e.envelope)).toEqual([]);
  return output;
}

const types = (output: { events: { envelope: { callback_type: string; status?: string } }[] }) =>
  output.events.map((e) => `${e.envelope.callback_type}:${e.envelope.status ?? '-'}`);

describe('pnpm admin: the pharmacy staff actions', () => {
  const key = () => acme.production_api_key;

  it('transfer contact, then complete: prints the result and the events recorded', async () => {
    const patient = await createPatient(t, key());
    const { data } = await t.client(key()).POST('/v1/transfer_request', { body: transferBody(patient, ['Lisinopril']) as never });
    const token = data!.request_id;
    const medication = data!.details.transfer_medications[0]!.transfer_medication_token;

    const contacted = await admin('transfer', 'contact', '--token', token, '--method', 'phone');
    expect(types(contacted)).toEqual(['TRANSFER_CONTACT:success']);
    const outcomes = JSON.stringify([{ transfer_medication_token: medication, prescription: { medication_name: 'Lisinopril 10 mg tablet', refills: 2 } }]);
    const completed = await admin('transfer', 'complete', '--token', token, '--outcomes', outcomes);
    expect(completed.status).toBe('completed');
    expect(types(completed)).toEqual(['NOTIFY_RX:-', 'TRANSFER:success']);
  });

  it('transfer reject, direct-transfer accept|reject', async () => {
    const patient = await createPatient(t, key());
    const { data } = await t.client(key()).POST('/v1/transfer_request', { body: transferBody(patient, ['Lisinopril']) as never });
    const rejected = await admin('transfer', 'reject', '--token', data!.request_id, '--code', 'TRANSFER_OTHER_REASON', '--message', 'Closed.');
    expect(rejected.events[0].envelope.details).toMatchObject({ error_code: 'TRANSFER_OTHER_REASON', message: 'Closed.' });

    const direct = async () => (await t.client(key()).POST('/v1/direct_transfer', { body: directTransferBody(patient) as never })).data!.request_id;
    expect(types(await admin('direct-transfer', 'accept', '--token', await direct()))).toEqual(['NOTIFY_RX:-', 'DIRECT_TRANSFER:success']);
    const refused = await admin('direct-transfer', 'reject', '--token', await direct(), '--reason', 'the prescription has expired');
    expect(refused.message).toBe('Direct transfer rejected: the prescription has expired.');
  });

  it('prescription receive, fill dispense, fill ship to DELIVERED', async () => {
    const patient = await createPatient(t, key());
    const received = await admin(
      'prescription', 'receive', '--customer', acme.customer_id, '--environment', 'production', '--patient', patient,
      '--json', JSON.stringify({ medication_name: 'Metformin 500 mg tablet', prescribed_ndc: '00093101201' }),
    );
    expect(types(received)).toEqual(['NOTIFY_RX:-']);
    const { patient_survey: _s, ...address } = destination;
    const { data } = await t.client(key()).POST('/v1/fill_request', {
      body: { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: received.prescription_token }], ...address, patient_survey: {} } as never,
    });
    const dispensed = await admin('fill', 'dispense', '--token', data!.request_id);
    expect(types(dispensed)).toEqual(['ORDER:success']);
    for (const status of ['IN_TRANSIT', 'DELIVERED']) {
      const shipped = await admin('fill', 'ship', '--order', dispensed.order_token, '--status', status);
      expect(shipped.events[0].envelope.details.status).toBe(status);
    }
    const order = await t.client(key()).GET('/v1/order/{token}', { params: { path: { token: dispensed.order_token } } });
    expect(order.data!.status).toBe('delivered');
  });

  it.each([
    [['transfer', 'reject', '--token', 'x', '--code', 'NOPE'], 2, 'not a transfer rejection code'],
    [['transfer', 'launch', '--token', 'x'], 2, 'the action must be one of'],
    [['fill', 'ship', '--order', 'x', '--status', 'LOST'], 2, '--status must be one of'],
    [['direct-transfer', 'accept', '--token', 'missing'], 1, 'Direct transfer missing not found.'],
  ])('refuses %j (exit %i)', async (args, code, message) => {
    await expect(admin(...args)).rejects.toMatchObject({ code, stderr: expect.stringContaining(message) });
  });
});
