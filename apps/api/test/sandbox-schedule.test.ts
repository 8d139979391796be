// The sandbox's schedule: its step delay, nothing scheduled for production or refused creates,
// and the remaining steps run once each after a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { eventsOf, waitFor } from './support/event-schemas.js';
import { address, createPatient, insertPrescription } from './support/fixtures.js';
import { pharmacyEnv } from './support/lifecycle-fixtures.js';
import { sandboxSteps, startSimulatedSandbox, summary } from './support/sandbox-steps.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  ({ t, acme } = await startSimulatedSandbox());
});
afterAll(async () => t?.close());

const { db, sandboxKey, eventsFor, createTransfer, createDirectTransfer, createFillRequest } = sandboxSteps(() => ({ t, acme }));

describe('the schedule', () => {
  it('SANDBOX_STEP_DELAY_MS: 3000 by default, 0 allowed, anything else refused at start', () => {
    expect(loadConfig({}).sandboxStepDelayMs).toBe(3000);
    expect(loadConfig({ SANDBOX_STEP_DELAY_MS: '0' }).sandboxStepDelayMs).toBe(0);
    for (const bad of ['-1', '1.5', 'soon', '86400001']) {
      expect(() => loadConfig({ SANDBOX_STEP_DELAY_MS: bad })).toThrow(/SANDBOX_STEP_DELAY_MS/);
    }
  });

  const stepsOf = (token: string) => db().selectFrom('sandbox_steps').selectAll().where('subject_token', '=', token).execute();

  it('production creates schedule nothing (pharmacy staff process them)', async () => {
    const key = acme.production_api_key;
    const { token: transfer } = await createTransfer(['Lisinopril'], {}, key);
    const { token: direct } = await createDirectTransfer({}, key);
    const patient = await createPatient(t, key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, environment: 'production', patient_token: patient });
    const fill = await createFillRequest(patient, rx.token, undefined, key);
    for (const token of [transfer, direct, fill]) expect(await stepsOf(token)).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    for (const token of [transfer, direct, fill]) expect(await eventsFor(token)).toEqual([]);
  });

  it('a refused create schedules nothing', async () => {
    const before = (await db().selectFrom('sandbox_steps').select('id').execute()).length;
    const patient = await createPatient(t, sandboxKey());
    const { response } = await t.client(sandboxKey()).POST('/v1/fill_request', {
      body: { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: 'missing' }], ...address, patient_survey: {} } as never,
    });
    expect(response.status).toBe(400);
    expect((await db().selectFrom('sandbox_steps').select('id').execute()).length).toBe(before);
  });

  it('survives a restart: a new app on the same database runs the remaining steps, each once', async () => {
    // The first process: an hour between steps, so only what it is told to do happens.
    const first = await startTestApp({ ...pharmacyEnv });
    try {
      const customer = await first.customer('Restart');
      const patient = await createPatient(first, customer.sandbox_api_key);
      const rx = await insertPrescription(first, { customer_id: customer.customer_id, patient_token: patient });
      const { data } = await first.client(customer.sandbox_api_key).POST('/v1/fill_request', {
        body: { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: rx.token }], ...address, patient_survey: {} } as never,
      });
      const request = data!.request_id;
      const fdb = first.database.handle.db;
      const due = () => fdb.updateTable('sandbox_steps').set({ run_at: new Date(Date.now() - 1000).toISOString() }).where('subject_token', '=', request).execute();
      const [scheduled] = await fdb.selectFrom('sandbox_steps').selectAll().where('subject_token', '=', request).execute();
      expect(scheduled).toMatchObject({ subject: 'fill_request', step: 0, state: 'scheduled' });

      // It performs the first step (ORDER), then stops.
      await Promise.all(first.app.workers.map((w) => w.stop()));
      await due();
      expect(await first.app.services.sandboxSimulator.tick()).toBe(1);
      const events = async () => (await eventsOf(fdb, customer.customer_id)).filter((e) => e.request_id === request);
      expect(summary(await events())).toEqual(['ORDER:success']);

      // Time passes; two new processes start on the same database and share the remaining steps.
      await due();
      const config = loadConfig({ LOG_LEVEL: 'silent', SANDBOX_STEP_DELAY_MS: '0', ...pharmacyEnv });
      const second = await buildApp({ config, database: first.database.handle });
      const third = await buildApp({ config, database: first.database.handle });
      try {
        await Promise.all([second.fastify.ready(), third.fastify.ready()]);
        const done = await waitFor(async () => {
          const all = await events();
          return all.some((e) => e.details.status === 'DELIVERED') ? all : undefined;
        }, 20_000, 'DELIVERED after restart');
        expect(summary(done)).toEqual(['ORDER:success', 'SHIPMENT:success:IN_TRANSIT', 'SHIPMENT:success:OUT_FOR_DELIVERY', 'SHIPMENT:success:DELIVERED']);
        const [finished] = await fdb.selectFrom('sandbox_steps').selectAll().where('subject_token', '=', request).execute();
        expect(finished).toMatchObject({ state: 'done', step: 4, locked_until: null });
      } finally {
        await second.fastify.close();
        await third.fastify.close();
      }
    } finally {
      await first.close();
    }
  });
});
