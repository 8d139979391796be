import { isRejectionCode, type TransferRejectionCode } from '../transfers/rejection-codes.js';

/**
 * Forced outcomes of the sandbox's simulated pharmacy: markers integrators write in the
 * free-text fields of a sandbox request (documented in the spec's `x-sandbox-triggers` and
 * in spec/README.md). Markers are case-sensitive and may sit anywhere in the field. Without
 * one, every lifecycle succeeds.
 *
 * - transfer request (`notes` or `metadata`):
 *   `sandbox:reject:<TransferRejectionCode>` → `TRANSFER_CONTACT` success, then `TRANSFER` error with that code;
 *   `sandbox:contact_error` → `TRANSFER_CONTACT` error, then `TRANSFER` error `TRANSFER_CONTACT_INFO_INCORRECT`.
 * - direct transfer (`prescription.number` or `prescription.medication_sig`):
 *   `sandbox:reject` → only a `DIRECT_TRANSFER` error.
 * - fill request (`metadata`):
 *   `sandbox:triage` → `ORDER` triage (the request stays in triage);
 *   `sandbox:error` → `ORDER` error (the request is in error);
 *   `sandbox:returned` → `ORDER` success, `SHIPMENT` IN_TRANSIT, then `SHIPMENT` RETURNED (error).
 * - lab order (`custom_data_1`, `custom_data_2` or `custom_data_3`):
 *   `sandbox:abnormal` → every milestone, with results out of range;
 *   `sandbox:reject` → milestones to delivered to lab, then rejected (not fixable);
 *   `sandbox:reject:fixable` → the same, fixable with a new sample.
 * - consult (`metadata`):
 *   `sandbox:issue` → `issue` (a task for the patient), then `issueCompleted`;
 *   `sandbox:reject` → `rejected`; none → `completed`.
 */
const SANDBOX_MARKERS = {
  reject: 'sandbox:reject',
  contactError: 'sandbox:contact_error',
  triage: 'sandbox:triage',
  error: 'sandbox:error',
  returned: 'sandbox:returned',
  abnormal: 'sandbox:abnormal',
  rejectFixable: 'sandbox:reject:fixable',
  issue: 'sandbox:issue',
} as const;

type TransferTrigger =
  | { kind: 'complete' }
  | { kind: 'reject'; code: TransferRejectionCode }
  | { kind: 'contact_error' };

export function transferTrigger(...texts: (string | null | undefined)[]): TransferTrigger {
  const text = texts.filter(Boolean).join('\n');
  if (text.includes(SANDBOX_MARKERS.contactError)) return { kind: 'contact_error' };
  for (const match of text.matchAll(/sandbox:reject:([A-Z_]+)/g)) {
    if (isRejectionCode(match[1]!)) return { kind: 'reject', code: match[1] };
  }
  return { kind: 'complete' };
}

export function directTransferRejected(...texts: (string | null | undefined)[]): boolean {
  return texts.some((t) => t?.includes(SANDBOX_MARKERS.reject));
}

type FillTrigger = 'fill' | 'triage' | 'error' | 'returned';

export function fillTrigger(metadata: string | null | undefined): FillTrigger {
  if (!metadata) return 'fill';
  if (metadata.includes(SANDBOX_MARKERS.triage)) return 'triage';
  if (metadata.includes(SANDBOX_MARKERS.error)) return 'error';
  if (metadata.includes(SANDBOX_MARKERS.returned)) return 'returned';
  return 'fill';
}

type LabTrigger = 'normal' | 'abnormal' | 'reject' | 'reject_fixable';

export function labTrigger(...texts: (string | null | undefined)[]): LabTrigger {
  const text = texts.filter(Boolean).join('\n');
  if (text.includes(SANDBOX_MARKERS.rejectFixable)) return 'reject_fixable';
  if (text.includes(SANDBOX_MARKERS.reject)) return 'reject';
  if (text.includes(SANDBOX_MARKERS.abnormal)) return 'abnormal';
  return 'normal';
}

type ConsultTrigger = 'complete' | 'issue' | 'reject';

export function consultTrigger(metadata: string | null | undefined): ConsultTrigger {
  if (metadata?.includes(SANDBOX_MARKERS.issue)) return 'issue';
  if (metadata?.includes(SANDBOX_MARKERS.reject)) return 'reject';
  return 'complete';
}
