// Transfer requests and direct transfers in the sandbox: the simulated pharmacy carries them through,
// accepts or rejects them as `sandbox:` markers ask, and records the events staff actions would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { TRANSFER_REJECTIONS, type TransferRejectionCode } from '../src/transfers/rejection-codes.js';
import { sandboxSteps, startSimulatedSandbox, summary } from './support/sandbox-steps.js';
import type { TestApp } from './support/test-app.js';

const REJECTION_CODES = Object.keys(TRANSFER_REJECTIONS) as TransferRejectionCode[];

let t: TestApp;
let acme: NewCustomer;

beforeAll(async () => {
  ({ t, acme } = await startSimulatedSandbox());
});
afterAll(async () => t?.close());

const { sandboxKey, waitForEvent, notifyRxOf, createTransfer, createDirectTransfer } = sandboxSteps(() => ({ t, acme }));

describe('transfer requests in the sandbox', () => {
  it('a transfer of 3 medications: TRANSFER_CONTACT, 3 NOTIFY_RX, one TRANSFER success; the request completed', async () => {
    const { patient, token } = await createTransfer(['Lisinopril', 'Metformin', 'Atorvastatin']);
    const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:success']);
    expect(events[0]!.details).toMatchObject({ contact_method: 'fax', contact_number: '5125550101', transfer_token: token });
    const transferred = events[1]!.details.medications as { prescription_token: string; requested_medication_name: string }[];
    expect(transferred.map((m) => m.requested_medication_name)).toEqual(['Lisinopril', 'Metformin', 'Atorvastatin']);
    const notified = await notifyRxOf(patient);
    expect(notified.map((e) => e.details.prescription_token).sort()).toEqual(transferred.map((m) => m.prescription_token).sort());

    const { data } = await t.client(sandboxKey()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    expect(data![0]!.status).toBe('completed');
  });

  it('a transfer of every medication transfers one example medication; without a fax the pharmacy is phoned', async () => {
    const { patient, token } = await createTransfer(undefined, { pharmacy_fax: undefined });
    const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:success']);
    expect(events[0]!.details).toMatchObject({ contact_method: 'phone', contact_number: '5125550100' });
    expect(await notifyRxOf(patient)).toHaveLength(1);
  });

  it('every rejection code can be forced: `sandbox:reject:<code>` in notes or metadata ends with a TRANSFER error with it', async () => {
    const created = await Promise.all(
      REJECTION_CODES.map(async (code, i) => ({
        code,
        ...(await createTransfer(['Lisinopril'], i % 2 ? { notes: `please sandbox:reject:${code} thanks` } : { metadata: `sandbox:reject:${code}` })),
      })),
    );
    for (const { code, token, patient } of created) {
      const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', `TRANSFER of ${code}`);
      expect(summary(events)).toEqual(['TRANSFER_CONTACT:success', 'TRANSFER:error']);
      expect(events[1]!.details).toMatchObject({ error_code: code, description: TRANSFER_REJECTIONS[code] });
      expect(await notifyRxOf(patient)).toEqual([]);
      const { data } = await t.client(sandboxKey()).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
      expect(data![0]).toMatchObject({ status: 'rejected', cancel_reason: code });
    }
  });

  it('`sandbox:contact_error`: TRANSFER_CONTACT error, then TRANSFER error TRANSFER_CONTACT_INFO_INCORRECT', async () => {
    const { token } = await createTransfer(['Lisinopril'], { metadata: 'sandbox:contact_error' });
    const events = await waitForEvent(token, (e) => e.callback_type === 'TRANSFER', 'TRANSFER');
    expect(summary(events)).toEqual(['TRANSFER_CONTACT:error', 'TRANSFER:error']);
    expect(events.map((e) => e.details.error_code)).toEqual(['TRANSFER_CONTACT_INFO_INCORRECT', 'TRANSFER_CONTACT_INFO_INCORRECT']);
  });
});

describe('direct transfers in the sandbox', () => {
  it('accepted: NOTIFY_RX and DIRECT_TRANSFER success with the same prescription', async () => {
    const { patient, token } = await createDirectTransfer();
    const events = await waitForEvent(token, (e) => e.callback_type === 'DIRECT_TRANSFER', 'DIRECT_TRANSFER');
    expect(summary(events)).toEqual(['DIRECT_TRANSFER:success']);
    const [notify] = await notifyRxOf(patient);
    expect(notify!.details.prescription_token).toBe(events[0]!.details.prescription_token);
  });

  it.each([['number', { number: 'sandbox:reject' }], ['medication_sig', { medication_sig: 'Take daily sandbox:reject' }]])(
    '`sandbox:reject` in prescription.%s: only a DIRECT_TRANSFER error',
    async (_field, prescription) => {
      const { patient, token } = await createDirectTransfer(prescription);
      const events = await waitForEvent(token, (e) => e.callback_type === 'DIRECT_TRANSFER', 'DIRECT_TRANSFER');
      expect(summary(events)).toEqual(['DIRECT_TRANSFER:error']);
      expect(events[0]!.details.message).toMatch(/^Direct transfer rejected: /);
      expect(await notifyRxOf(patient)).toEqual([]);
    },
  );
});
