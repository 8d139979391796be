import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { components } from '@pharmacy/contract';
import { expect, onTestFinished } from 'vitest';
import type { Environment } from '../../src/auth/principal.js';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import type { UnitOfWork } from '../../src/events/unit-of-work.js';
import { createPatient } from './fixtures.js';
import { adminWithKeys } from './sealed-fields.js';
import { startTestApp, type TestApp } from './test-app.js';
import { TEST_SECRETS_KEY } from './webhook-receiver.js';

/** Lab orders as the stories make and read them: the sample catalogue's ids, bodies, and the operator's commands. */
export type DiagnosticOrder = components['schemas']['DiagnosticOrder'];
export type DiagnosticResultV2 = components['schemas']['DiagnosticResultV2'];

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shipped sample catalogue (the sandbox's until one is imported). */
export const SAMPLE_CATALOGUE_FILE = join(apiRoot, 'reference-data/diagnostics-catalogue.json');

/** The tests of the sample catalogue (reference-data/diagnostics-catalogue.json). */
export const TESTS = {
  lipid: '7c923d60-0dc5-4aa8-aeea-aa9ce52b8f1a', // needs a physician; kits: finger prick, upper arm; panel lipid_panel
  a1c: '43446c21-e087-4829-9aab-68883f9a5a03', // finger prick; panel hba1c
  thyroid: '8daf16d9-65d1-45c6-8f37-fabefbaf42dc', // finger prick, upper arm; panels tsh, free_t4
  vitaminD: 'ddd13193-acf4-43d5-8cf4-18a968888e5f',
  covid: '5ee61a59-d91b-4d86-8cce-161e1586827f', // nasal swab; qualitative
  sti: '1980de61-2d9c-4022-b128-a0e7475a98a1', // needs a physician; urine; panels chlamydia, gonorrhea (qualitative)
  fit: '0f046b22-372e-4d85-b038-7bdb5a00703f',
  heart: 'be76627a-ba41-467f-89ad-4f6f7a1b54bf', // needs a physician; upper arm, finger prick; panels lipid_panel, hba1c
} as const;

/** The kits of the sample catalogue. */
export const KITS = {
  fingerPrick: '3319b27c-5213-40e4-8524-ee46eeff313b', // KIT-BLD-FP-01
  upperArm: '64e62ad5-52f8-443e-9123-31ff7b3f5089', // KIT-BLD-UA-01
  nasal: '7787a849-1bdd-43b8-aa8e-ed9358753e86', // KIT-SWB-NA-01
  urine: 'c1e5db21-8af6-4249-a449-694974163412', // KIT-URN-01
  fit: '330d3212-3481-42e9-a05f-08ef218ccc0d', // KIT-STL-FIT-01
} as const;

/** A version-4 UUID that is no test or kit of any catalogue. */
export const UNKNOWN_ID = '0b9a2f4e-3c1d-4e5f-8a6b-7c8d9e0f1a2b';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Where kits are shipped. */
export const shippingAddress = { name: 'Jane Doe', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107' };
/** The physician an order of a test that needs approval names. */
export const physician = { first_name: 'Ada', last_name: 'Okafor', npi: '1234567893' };

/** A serial no other story uses (serials are unique over every order of the deployment). */
export function freshSerial(prefix = 'KT'): string {
  return `${prefix}-${Date.now().toString(36).toUpperCase()}-${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
}

/** `POST /diagnostics/v0/orders` with the API key; expects `201` and answers the order. */
export async function createOrder(t: TestApp, apiKey: string, body: Record<string, unknown>): Promise<DiagnosticOrder> {
  const { data, error, response } = await t.client(apiKey).POST('/diagnostics/v0/orders', { body: body as never });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!;
}

/** `POST /diagnostics/v0/orders/register` with the API key; expects `201` and answers the order. */
export async function registerOrder(t: TestApp, apiKey: string, body: Record<string, unknown>): Promise<DiagnosticOrder> {
  const { data, error, response } = await t.client(apiKey).POST('/diagnostics/v0/orders/register', { body: body as never });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!;
}

/** `GET /diagnostics/v0/orders/{order_id}`; expects `200`. */
export async function getOrder(t: TestApp, apiKey: string, id: string): Promise<DiagnosticOrder> {
  const { data, response } = await t.client(apiKey).GET('/diagnostics/v0/orders/{order_id}', { params: { path: { order_id: id } } });
  expect(response.status).toBe(200);
  return data!;
}

/** The three ways to read an order's results, each `200`: v0, v2 (with media_ids) and the seed's path. */
export async function resultsOf(t: TestApp, apiKey: string, id: string) {
  const client = t.client(apiKey);
  const [v0, v2, seed] = await Promise.all([
    client.GET('/diagnostics/v0/orders/{order_id}/results', { params: { path: { order_id: id } } }),
    client.GET('/diagnostics/v2/orders/{order_id}/results', { params: { path: { order_id: id } } }),
    client.GET('/v0/orders/{orderId}/results', { params: { path: { orderId: id } } }),
  ]);
  for (const answer of [v0, v2, seed]) expect(answer.response.status).toBe(200);
  return { v0: v0.data!, v2: v2.data!, seed: seed.data! };
}

/** A file in a temp folder of its own, removed when the test that asked for it ends; answers its path. */
export function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'diagnostics-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `pnpm admin <args>` as the operator runs it on the app's database (with the app's SECRETS_KEY); answers its printed JSON. */
export async function admin(t: TestApp, args: string[]): Promise<any> {
  const { stdout } = await adminWithKeys(t.database, { SECRETS_KEY: TEST_SECRETS_KEY }, args);
  return JSON.parse(stdout);
}

/** A command the operator runs that must be refused: answers its exit code and stderr. */
export async function adminRefused(t: TestApp, args: string[]): Promise<{ code: number; stderr: string }> {
  const outcome = await adminWithKeys(t.database, { SECRETS_KEY: TEST_SECRETS_KEY }, args).then(
    (done) => ({ code: 0, stderr: done.stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  expect(outcome.code, 'the command was refused').not.toBe(0);
  return outcome;
}

/** `pnpm admin diagnostics-catalogue import` of a catalogue file into an environment. */
export function importCatalogue(t: TestApp, environment: Environment, file = SAMPLE_CATALOGUE_FILE) {
  return admin(t, ['diagnostics-catalogue', 'import', '--environment', environment, '--file', file]);
}

/** The lab order statuses, in the order the milestones happen. */
export const MILESTONES = [
  'ORDER_SUCCESS',
  'SHIPPED',
  'IN_TRANSIT',
  'DELIVERED_TO_PATIENT',
  'SHIPPED_TO_LAB',
  'IN_TRANSIT_TO_LAB',
  'DELIVERED_TO_LAB',
  'LAB_ACCESSED_KIT',
  'RESULTS_AVAILABLE',
] as const;
export type Milestone = (typeof MILESTONES)[number];

/** The event each milestone is reported by. */
export const CALLBACK_TYPE: Record<Milestone | 'REJECTED', string> = {
  ORDER_SUCCESS: 'DIAGNOSTICS_ORDER_SUCCESS',
  SHIPPED: 'DIAGNOSTICS_ORDER_SHIPPED',
  IN_TRANSIT: 'DIAGNOSTICS_ORDER_IN_TRANSIT',
  DELIVERED_TO_PATIENT: 'DIAGNOSTICS_ORDER_DELIVERED_TO_PATIENT',
  SHIPPED_TO_LAB: 'DIAGNOSTICS_ORDER_SHIPPED_TO_LAB',
  IN_TRANSIT_TO_LAB: 'DIAGNOSTICS_ORDER_IN_TRANSIT_TO_LAB',
  DELIVERED_TO_LAB: 'DIAGNOSTICS_ORDER_DELIVERED_TO_LAB',
  LAB_ACCESSED_KIT: 'DIAGNOSTICS_LAB_ACCESSED_KIT',
  RESULTS_AVAILABLE: 'DIAGNOSTICS_RESULTS_AVAILABLE',
  REJECTED: 'DIAGNOSTICS_ORDER_REJECTED',
};

/**
 * Moves an order on, in the service's process, milestone by milestone up to `until`, as the
 * operator's commands do (for stories about what comes after): a kit shipped by UPS, the
 * sample returned by USPS, accession id ACC-<n>. A held kit skips the three to the patient.
 */
export async function driveOrder(t: TestApp, id: string, until: Exclude<Milestone, 'ORDER_SUCCESS' | 'RESULTS_AVAILABLE'>): Promise<void> {
  const lab = t.app.services.diagnosticLifecycle;
  const held = (await t.database.handle.db.selectFrom('diagnostic_orders').select('registered').where('id', '=', id).executeTakeFirstOrThrow()).registered === 1;
  type Step = [Milestone, (uow: UnitOfWork) => Promise<unknown>];
  const toPatient: Step[] = [
    ['SHIPPED', (uow) => lab.ship(uow, id, { carrier: 'ups', tracking_number: '1Z999AA10123456784', kit_serial: freshSerial('SHIP') })],
    ['IN_TRANSIT', (uow) => lab.inTransit(uow, id)],
    ['DELIVERED_TO_PATIENT', (uow) => lab.deliver(uow, id)],
  ];
  const toLab: Step[] = [
    ['SHIPPED_TO_LAB', (uow) => lab.shipToLab(uow, id, { carrier: 'usps', tracking_number: '9400111899223344556677' })],
    ['IN_TRANSIT_TO_LAB', (uow) => lab.inTransitToLab(uow, id)],
    ['DELIVERED_TO_LAB', (uow) => lab.deliverToLab(uow, id)],
    ['LAB_ACCESSED_KIT', (uow) => lab.accessKit(uow, id, `ACC-${Date.now()}`)],
  ];
  const steps = held ? toLab : [...toPatient, ...toLab];
  for (const [status, step] of steps) {
    await t.app.services.units.run('test', step);
    if (status === until) return;
  }
}

/**
 * A suite of production lab orders: the app, Acme with a patient, and production's catalogue
 * imported (production has none until the operator imports one).
 */
export async function startProductionLab(): Promise<{ t: TestApp; acme: NewCustomer; patient: string }> {
  const t = await startTestApp();
  const acme = await t.customer('Acme');
  await importCatalogue(t, 'production');
  return { t, acme, patient: await createPatient(t, acme.production_api_key) };
}
