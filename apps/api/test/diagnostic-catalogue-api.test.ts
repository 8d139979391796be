// The diagnostics catalogue through the API: the tests and kits an integrator can order
// (listDiagnosticTests, listDiagnosticKits) and the kit serial check (validateKitSerial).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { waitFor } from './support/event-schemas.js';
import { createPatient } from './support/fixtures.js';
import { importCatalogue, KITS, registerOrder, SAMPLE_CATALOGUE_FILE, tempFile, TESTS, UNKNOWN_ID } from './support/diagnostic-orders.js';
import { accessToken } from './support/platform.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;

beforeAll(async () => {
  ({ t, acme, globex } = await startTestAppWithCustomers());
});
afterAll(async () => t?.close());

const apiKey = (key: string) => ({ authorization: `ApiKey ${key}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const get = (path: string, headers: Record<string, string>) => t.raw('GET', path, { headers });
const validation = (kitId: string, serial: string, headers = apiKey(acme.sandbox_api_key)) =>
  get(`/diagnostics/v0/kits/${kitId}/validation/kit_serial?test=${encodeURIComponent(serial)}`, headers);

describe('a sandbox key lists the shipped sample catalogue', () => {
  it('answers the tests as a bare array, by name, each with its panels, LOINC-coded results, sample and kits', async () => {
    const { status, json: tests } = await get('/diagnostics/v0/tests', apiKey(acme.sandbox_api_key));
    expect(status).toBe(200);
    expect(Array.isArray(tests)).toBe(true);
    expect(tests.map((test: { name: string }) => test.name)).toEqual([
      'Chlamydia and gonorrhea',
      'Colon cancer screening (FIT)',
      'COVID-19 PCR',
      'Heart health',
      'Hemoglobin A1c',
      'Lipid panel',
      'Thyroid function',
      'Vitamin D',
    ]);
    expect(tests.find((test: { id: string }) => test.id === TESTS.thyroid)).toEqual({
      id: TESTS.thyroid,
      name: 'Thyroid function',
      description: 'Thyroid-stimulating hormone and free thyroxine.',
      sample_type: 'blood',
      requires_physician_approval: false,
      kit_ids: [KITS.fingerPrick, KITS.upperArm],
      panels: [
        {
          code: 'tsh',
          name: 'Thyroid-stimulating hormone',
          description: null,
          results: [{ code: '3016-3', code_system: 'LOINC', name: 'TSH', kind: 'quantitative', unit: 'mIU/L', reference_range: '0.4-4' }],
        },
        {
          code: 'free_t4',
          name: 'Free thyroxine',
          description: null,
          results: [{ code: '3024-7', code_system: 'LOINC', name: 'Free T4', kind: 'quantitative', unit: 'ng/dL', reference_range: '0.8-1.8' }],
        },
      ],
    });
    // Ranges with one bound, and a qualitative result's normal answer.
    const analytes = tests.flatMap((test: any) => test.panels.flatMap((panel: any) => panel.results));
    expect(analytes.find((a: any) => a.code === '2093-3')).toMatchObject({ name: 'Cholesterol, total', unit: 'mg/dL', reference_range: '<=200' });
    expect(analytes.find((a: any) => a.code === '2085-9')).toMatchObject({ name: 'HDL cholesterol', reference_range: '>=40' });
    expect(analytes.find((a: any) => a.code === '94500-6')).toEqual({
      code: '94500-6',
      code_system: 'LOINC',
      name: 'SARS-CoV-2 RNA',
      kind: 'qualitative',
      unit: null,
      reference_range: 'NOT DETECTED',
    });
    for (const analyte of analytes) expect(analyte.code_system, analyte.name).toBe('LOINC');
  });

  it('marks the tests that need a physician: Chlamydia and gonorrhea, Heart health, Lipid panel', async () => {
    const { json: tests } = await get('/diagnostics/v0/tests', apiKey(acme.sandbox_api_key));
    const needing = tests.filter((test: { requires_physician_approval: boolean }) => test.requires_physician_approval).map((test: { id: string }) => test.id);
    expect(needing).toEqual([TESTS.sti, TESTS.heart, TESTS.lipid]);
  });

  it('answers the kits as a bare array, by name, each kit naming the tests whose kit_ids name it', async () => {
    const [{ status, json: kits }, { json: tests }] = await Promise.all([
      get('/diagnostics/v0/kits', apiKey(acme.sandbox_api_key)),
      get('/diagnostics/v0/tests', apiKey(acme.sandbox_api_key)),
    ]);
    expect(status).toBe(200);
    expect(kits.map((kit: { sku: string }) => kit.sku)).toEqual(['KIT-BLD-FP-01', 'KIT-STL-FIT-01', 'KIT-SWB-NA-01', 'KIT-BLD-UA-01', 'KIT-URN-01']);
    expect(kits.find((kit: { id: string }) => kit.id === KITS.upperArm)).toEqual({
      id: KITS.upperArm,
      sku: 'KIT-BLD-UA-01',
      name: 'Upper-arm blood collection device',
      description: 'A push-button device that draws a larger blood sample from the upper arm, with a prepaid return box.',
      sample_type: 'blood',
      test_ids: [TESTS.lipid, TESTS.thyroid, TESTS.heart],
    });
    for (const kit of kits) {
      const serving = tests.filter((test: { kit_ids: string[] }) => test.kit_ids.includes(kit.id)).map((test: { id: string }) => test.id);
      expect([...kit.test_ids].sort(), kit.name).toEqual(serving.sort());
    }
    // And no test names a kit the listing does not have.
    const kitIds = new Set(kits.map((kit: { id: string }) => kit.id));
    for (const test of tests) for (const id of test.kit_ids) expect(kitIds.has(id), `${test.name}: ${id}`).toBe(true);
  });

  it('answers a bearer token of the sandbox client exactly as the sandbox key', async () => {
    const token = await accessToken(t, acme, 'sandbox');
    for (const path of ['/diagnostics/v0/tests', '/diagnostics/v0/kits']) {
      const [byToken, byKey] = await Promise.all([get(path, bearer(token)), get(path, apiKey(acme.sandbox_api_key))]);
      expect(byToken.status).toBe(200);
      expect(byToken.json).toEqual(byKey.json);
    }
  });
});

describe('kit serial validation (validateKitSerial)', () => {
  it.each<[string, string, boolean]>([
    ['a fresh well-formed serial', 'KT-2026-000481', true],
    ['a serial of 4 characters', 'ABCD', true],
    ['a serial of 64 characters', 'K'.repeat(64), true],
    ['a serial of 3 characters', 'KT1', false],
    ['a serial of 65 characters', 'K'.repeat(65), false],
    ['a serial with a space', 'KT 2026', false],
    ['a serial with an underscore', 'KT_2026', false],
  ])('%s answers %s', async (_, serial, valid) => {
    const { status, json } = await validation(KITS.fingerPrick, serial);
    expect(status).toBe(200);
    expect(json).toBe(valid);
  });

  it('answers false for a serial an order holds, whoever asks, and true again for another serial', async () => {
    const serial = 'KT-HELD-000001';
    expect((await validation(KITS.fingerPrick, serial)).json).toBe(true);
    const patient = await createPatient(t, acme.sandbox_api_key);
    await registerOrder(t, acme.sandbox_api_key, { kit_serial: serial, patient_token: patient, test_id: TESTS.thyroid });
    expect((await validation(KITS.fingerPrick, serial)).json).toBe(false);
    // Another customer, and another kit: a physical kit serves one order.
    expect((await validation(KITS.upperArm, serial, apiKey(globex.sandbox_api_key))).json).toBe(false);
    expect((await validation(KITS.fingerPrick, 'KT-HELD-000002')).json).toBe(true);
  });

  it('answers 404 for a kit the catalogue does not have, and 400 for a kit id that is not a version-4 UUID', async () => {
    expect(await validation(UNKNOWN_ID, 'KT-2026-000481')).toMatchObject({
      status: 404,
      json: { statusCode: 404, error: 'Not Found', message: 'Unable to find Kit.' },
    });
    expect((await validation(KITS.fingerPrick.toUpperCase(), 'KT-2026-000481')).json).toBe(true);
    const malformed = await validation('3319b27c-5213-10e4-8524-ee46eeff313b', 'KT-2026-000481');
    expect(malformed.status).toBe(400);
    expect(malformed.json.validation_errors.map((e: { key: string }) => e.key)).toEqual(['kit_id']);
  });
});

describe('production has no catalogue until the operator imports one', () => {
  it('answers tests [] and kits 404 Unable to find Kits.; after an import, that catalogue, the sandbox unchanged', async () => {
    const production = apiKey(acme.production_api_key);
    expect(await get('/diagnostics/v0/tests', production)).toMatchObject({ status: 200, json: [] });
    expect(await get('/diagnostics/v0/kits', production)).toMatchObject({
      status: 404,
      json: { statusCode: 404, error: 'Not Found', message: 'Unable to find Kits.' },
    });
    expect((await validation(KITS.fingerPrick, 'KT-2026-000481', production)).status).toBe(404);

    // The operator imports a catalogue of the lipid panel and its two kits.
    const sample = JSON.parse(readFileSync(SAMPLE_CATALOGUE_FILE, 'utf8'));
    const lipidOnly = { tests: sample.tests.filter((test: { id: string }) => test.id === TESTS.lipid), kits: sample.kits.filter((kit: { id: string }) => kit.id === KITS.fingerPrick || kit.id === KITS.upperArm) };
    expect(await importCatalogue(t, 'production', tempFile('lipids.json', JSON.stringify(lipidOnly)))).toEqual({ environment: 'production', tests: 1, panels: 1, analytes: 5, kits: 2 });

    // The running service sees it within its cache time (5 seconds).
    const tests = await waitFor(async () => {
      const { json } = await get('/diagnostics/v0/tests', production);
      return json.length > 0 && json;
    }, 8_000, 'the imported catalogue');
    expect(tests.map((test: { name: string }) => test.name)).toEqual(['Lipid panel']);
    const kits = await get('/diagnostics/v0/kits', bearer(await accessToken(t, globex, 'production')));
    expect(kits.status).toBe(200);
    expect(kits.json.map((kit: { id: string; test_ids: string[] }) => [kit.id, kit.test_ids])).toEqual([
      [KITS.fingerPrick, [TESTS.lipid]],
      [KITS.upperArm, [TESTS.lipid]],
    ]);
    expect((await validation(KITS.fingerPrick, 'KT-2026-000481', production)).json).toBe(true);
    expect((await validation(KITS.urine, 'KT-2026-000481', production)).status).toBe(404);
    expect((await get('/diagnostics/v0/tests', apiKey(acme.sandbox_api_key))).json).toHaveLength(8);
  });
});
