// The lab's report, released by the operator with `pnpm admin lab results --file`: CSV as well
// as JSON (diagnostic-lifecycle.test.ts), severities computed from the catalogue's ranges
// unless the lab gives one, and every report that breaks a rule refused whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lab as labCommand } from '../src/admin/lab-commands.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { admin, adminRefused, createOrder, driveOrder, getOrder, resultsOf, shippingAddress, startProductionLab, tempFile, TESTS } from './support/diagnostic-orders.js';
import type { TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let patient: string;

beforeAll(async () => {
  ({ t, acme, patient } = await startProductionLab());
});
afterAll(async () => t?.close());

const key = () => acme.production_api_key;
const noResults = { v0: [], v2: [], seed: [] };
const MEDIA = ['0b6f8d2e-3c4a-4f1b-9a7e-5d2c1b0a9f8e', '5a0e9c1d-7b3f-4e2a-8c6d-1f2e3d4c5b6a'];

/** An order of the test whose kit the lab has accessed: its report is due. */
async function accessedOrder(testId: string = TESTS.thyroid) {
  const made = await createOrder(t, key(), { patient_token: patient, test_id: testId, address: shippingAddress });
  await driveOrder(t, made.id, 'LAB_ACCESSED_KIT');
  return getOrder(t, key(), made.id);
}

describe('a CSV report', () => {
  it('is refused whole when a line names an analyte the panel does not report', async () => {
    const order = await accessedOrder(TESTS.a1c);
    const report = tempFile('report.csv', ['panel,code,value', 'hba1c,4548-4,5.1', 'hba1c,9999-9,1'].join('\n'));
    const { code, stderr } = await adminRefused(t, ['lab', 'results', '--order', order.id, '--file', report]);
    expect(code).toBe(1);
    expect(stderr).toContain('Result 2 (hba1c/9999-9): panel hba1c reports no 9999-9.');
    expect(await getOrder(t, key(), order.id)).toEqual(order);
    expect(await resultsOf(t, key(), order.id)).toEqual(noResults);
  });

  it('releases its results: severities from the ranges unless the lab gives one, measured_at and media_ids as reported', async () => {
    const order = await accessedOrder(TESTS.a1c);
    const report = tempFile(
      'report.CSV',
      ['panel,code,value,measured_at,severity,media_ids', 'hba1c,4548-4,3.5,2026-01-21T08:00:00Z,,', `hba1c,27353-2,250,2026-01-21T08:00:00Z,critical,${MEDIA.join(' ')}`].join('\r\n'),
    );
    const out = await admin(t, ['lab', 'results', '--order', order.id, '--file', report]);
    expect(out.order).toMatchObject({ id: order.id, status: 'RESULTS_AVAILABLE' });
    const { v0, v2, seed } = await resultsOf(t, key(), order.id);
    const analyte = { measured_at: '2026-01-21T08:00:00.000Z', panel_name: 'Hemoglobin A1c', panel_code: 'hba1c', code_system: 'LOINC' };
    expect(v0).toEqual([
      { ...analyte, name: 'Hemoglobin A1c', quantitative_value: '3.5', severity: 'low', code: '4548-4', unit: '%', reference_range: '4-5.6' },
      { ...analyte, name: 'Estimated average glucose', quantitative_value: '250', severity: 'critical', code: '27353-2', unit: 'mg/dL', reference_range: '68-114' },
    ]);
    expect(v2).toEqual([{ ...v0[0], media_ids: [] }, { ...v0[1], media_ids: MEDIA }]);
    expect(seed).toEqual(v0);
    expect((await getOrder(t, key(), order.id)).media_ids).toEqual(MEDIA);
  });
});

describe('qualitative results', () => {
  it('are answered upper-cased, normal when the normal answer, abnormal otherwise', async () => {
    const order = await accessedOrder(TESTS.covid);
    const report = tempFile('covid.json', JSON.stringify([{ panel: 'sars_cov_2_rna', code: '94500-6', value: 'detected' }]));
    await admin(t, ['lab', 'results', '--order', order.id, '--file', report]);
    const { v0 } = await resultsOf(t, key(), order.id);
    expect(v0).toEqual([
      {
        name: 'SARS-CoV-2 RNA',
        qualitative_value: 'DETECTED',
        measured_at: expect.any(String),
        panel_name: 'SARS-CoV-2 RNA',
        severity: 'abnormal',
        panel_code: 'sars_cov_2_rna',
        code: '94500-6',
        code_system: 'LOINC',
        unit: null,
        reference_range: 'NOT DETECTED',
      },
    ]);
  });
});

describe('a report that breaks a rule is refused whole, and the order keeps waiting for one', () => {
  const tsh = { panel: 'tsh', code: '3016-3', value: 2.1 };
  it.each<[string, string, string, string]>([
    ['an empty report', 'report.json', '[]', 'A report needs at least one result.'],
    ['a result reported twice', 'report.json', JSON.stringify([tsh, { ...tsh, value: 2.2 }]), 'Result 2 (tsh/3016-3): reported twice.'],
    ['a quantitative value that is a word', 'report.json', JSON.stringify([tsh, { panel: 'free_t4', code: '3024-7', value: 'high' }]), 'Result 2 (free_t4/3024-7): the value must be a number.'],
    ['a blank quantitative value', 'report.json', JSON.stringify([{ ...tsh, value: ' ' }]), 'Result 1 (tsh/3016-3): the value must be a number.'],
    ['a hexadecimal quantitative value', 'report.json', JSON.stringify([{ ...tsh, value: '0x10' }]), 'Result 1 (tsh/3016-3): the value must be a number.'],
    ['an unknown severity', 'report.json', JSON.stringify([{ ...tsh, severity: 'severe' }]), 'Result 1 (tsh/3016-3): severity must be one of normal, low, high, critical, abnormal.'],
    ['a measured_at that is no date', 'report.json', JSON.stringify([{ ...tsh, measured_at: 'yesterday' }]), 'Result 1 (tsh/3016-3): measured_at must be a date-time.'],
    ['a media id that is no version-4 UUID', 'report.json', JSON.stringify([{ ...tsh, media_ids: ['scan-1'] }]), 'Result 1 (tsh/3016-3): media_ids must be at most 20 version-4 UUIDs.'],
    ['a field a result does not have', 'report.json', JSON.stringify([{ ...tsh, unit: 'mIU/L' }]), 'results[0].unit: is not a field of a result'],
    ['JSON that does not parse', 'report.json', '[{"panel": "tsh"', 'report.json is not valid JSON'],
    ['a CSV column a report does not have', 'report.csv', 'panel,code,value,unit\ntsh,3016-3,2.1,mIU/L', 'report.csv line 1: unknown column unit'],
    ['a file that is neither JSON nor CSV', 'report.txt', 'tsh 2.1', 'report.txt: a report is a .json or a .csv file'],
  ])('%s', async (_, name, text, message) => {
    const order = await accessedOrder();
    const run = labCommand(t.app.services, ['results', '--order', order.id, '--file', tempFile(name, text)]);
    await expect(run).rejects.toThrow(message);
    expect(await getOrder(t, key(), order.id)).toEqual(order);
    expect(await resultsOf(t, key(), order.id)).toEqual(noResults);
  });

  it('a report before the lab accessed the kit', async () => {
    const made = await createOrder(t, key(), { patient_token: patient, test_id: TESTS.thyroid, address: shippingAddress });
    await driveOrder(t, made.id, 'DELIVERED_TO_LAB');
    const run = labCommand(t.app.services, ['results', '--order', made.id, '--file', tempFile('report.json', JSON.stringify([tsh]))]);
    await expect(run).rejects.toThrow(`Order ${made.id} is DELIVERED_TO_LAB; RESULTS_AVAILABLE follows LAB_ACCESSED_KIT.`);
    expect(await resultsOf(t, key(), made.id)).toEqual(noResults);
  });
});
