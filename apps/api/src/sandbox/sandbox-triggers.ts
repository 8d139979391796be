import type { components } from '@pharmacy/contract';
import type { SandboxSimulation } from '../events/sandbox-simulation.js';
import { isRejectionCode, type TransferRejectionCode } from '../transfers/rejection-codes.js';

type Schemas = components['schemas'];

/**
 * Forced outcomes of the sandbox's simulated pharmacy, lab and provider. Each trigger reads
 * the `simulation` object the create sent first (validated against the spec, kept with the
 * lifecycle's schedule); without one it falls back to the deprecated text markers in the
 * record's free-text fields (still honoured, documented as deprecated in the spec's
 * `x-sandbox-triggers` and in spec/README.md). Markers are case-sensitive and may sit
 * anywhere in the field. Without either, every lifecycle succeeds. Both map onto the same
 * trigger kinds, so the scripts have one path per outcome.
 *
 * - transfer request: `simulation.outcome` `complete` | `reject` (with `error_code`,
 *   default `TRANSFER_OTHER_REASON`) | `contact_error`; markers in `notes` or `metadata`:
 *   `sandbox:reject:<TransferRejectionCode>` → `TRANSFER_CONTACT` success, then `TRANSFER` error with that code;
 *   `sandbox:contact_error` → `TRANSFER_CONTACT` error, then `TRANSFER` error `TRANSFER_CONTACT_INFO_INCORRECT`.
 * - direct transfer: `simulation.outcome` `accept` | `reject`; marker in `prescription.number`
 *   or `prescription.medication_sig`: `sandbox:reject` → only a `DIRECT_TRANSFER` error.
 * - fill request: `simulation.outcome` `fill` | `triage` | `error` | `returned`; markers in `metadata`:
 *   `sandbox:triage` → `ORDER` triage (the request stays in triage);
 *   `sandbox:error` → `ORDER` error (the request is in error);
 *   `sandbox:returned` → `ORDER` success, `SHIPMENT` IN_TRANSIT, then `SHIPMENT` RETURNED (error).
 * - lab order: `simulation.outcome` `normal` | `abnormal` | `rejected` | `rejected_fixable`;
 *   markers in `custom_data_1`, `custom_data_2` or `custom_data_3`:
 *   `sandbox:abnormal` → every milestone, with results out of range;
 *   `sandbox:reject` → milestones to delivered to lab, then rejected (not fixable);
 *   `sandbox:reject:fixable` → the same, fixable with a new sample.
 * - same-day delivery: `simulation.outcome` `delivered` | `canceled` | `failed` | `incomplete`;
 *   markers in `metadata` or `delivery_instruction`: `sandbox:canceled` → CANCELED before a
 *   courier is booked; `sandbox:failed` → collected, then FAILED; `sandbox:incomplete` →
 *   collected, then delivered INCOMPLETE.
 * - consult: `simulation.status` `completed` | `issue` | `rejected`; markers in `metadata`:
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
  canceled: 'sandbox:canceled',
  failed: 'sandbox:failed',
  incomplete: 'sandbox:incomplete',
} as const;

type Texts = (string | null | undefined)[];

type TransferTrigger =
  | { kind: 'complete' }
  | { kind: 'reject'; code: TransferRejectionCode }
  | { kind: 'contact_error' };

export function transferTrigger(simulation: SandboxSimulation | undefined, ...texts: Texts): TransferTrigger {
  const sim = simulation as Schemas['TransferRequestSimulation'] | undefined;
  if (sim) {
    if (sim.outcome === 'reject') return { kind: 'reject', code: sim.error_code ?? 'TRANSFER_OTHER_REASON' };
    return { kind: sim.outcome };
  }
  const text = texts.filter(Boolean).join('\n');
  if (text.includes(SANDBOX_MARKERS.contactError)) return { kind: 'contact_error' };
  for (const match of text.matchAll(/sandbox:reject:([A-Z_]+)/g)) {
    if (isRejectionCode(match[1]!)) return { kind: 'reject', code: match[1] };
  }
  return { kind: 'complete' };
}

export function directTransferRejected(simulation: SandboxSimulation | undefined, ...texts: Texts): boolean {
  const sim = simulation as Schemas['DirectTransferSimulation'] | undefined;
  if (sim) return sim.outcome === 'reject';
  return texts.some((t) => t?.includes(SANDBOX_MARKERS.reject));
}

type FillTrigger = 'fill' | 'triage' | 'error' | 'returned';

export function fillTrigger(simulation: SandboxSimulation | undefined, metadata: string | null | undefined): FillTrigger {
  const sim = simulation as Schemas['FillRequestSimulation'] | undefined;
  if (sim) return sim.outcome;
  if (!metadata) return 'fill';
  if (metadata.includes(SANDBOX_MARKERS.triage)) return 'triage';
  if (metadata.includes(SANDBOX_MARKERS.error)) return 'error';
  if (metadata.includes(SANDBOX_MARKERS.returned)) return 'returned';
  return 'fill';
}

type LabTrigger = 'normal' | 'abnormal' | 'reject' | 'reject_fixable';

const LAB_OUTCOMES: Record<Schemas['DiagnosticOrderSimulation']['outcome'], LabTrigger> = {
  normal: 'normal',
  abnormal: 'abnormal',
  rejected: 'reject',
  rejected_fixable: 'reject_fixable',
};

export function labTrigger(simulation: SandboxSimulation | undefined, ...texts: Texts): LabTrigger {
  const sim = simulation as Schemas['DiagnosticOrderSimulation'] | undefined;
  if (sim) return LAB_OUTCOMES[sim.outcome];
  const text = texts.filter(Boolean).join('\n');
  if (text.includes(SANDBOX_MARKERS.rejectFixable)) return 'reject_fixable';
  if (text.includes(SANDBOX_MARKERS.reject)) return 'reject';
  if (text.includes(SANDBOX_MARKERS.abnormal)) return 'abnormal';
  return 'normal';
}

type ConsultTrigger = 'complete' | 'issue' | 'reject';

const CONSULT_OUTCOMES: Record<Schemas['ConsultCreateSimulation']['status'], ConsultTrigger> = {
  completed: 'complete',
  issue: 'issue',
  rejected: 'reject',
};

export function consultTrigger(simulation: SandboxSimulation | undefined, metadata: string | null | undefined): ConsultTrigger {
  const sim = simulation as Schemas['ConsultCreateSimulation'] | undefined;
  if (sim) return CONSULT_OUTCOMES[sim.status];
  if (metadata?.includes(SANDBOX_MARKERS.issue)) return 'issue';
  if (metadata?.includes(SANDBOX_MARKERS.reject)) return 'reject';
  return 'complete';
}

type SameDayTrigger = 'deliver' | 'canceled' | 'failed' | 'incomplete';

const SAME_DAY_OUTCOMES: Record<Schemas['SameDayDeliverySimulation']['outcome'], SameDayTrigger> = {
  delivered: 'deliver',
  canceled: 'canceled',
  failed: 'failed',
  incomplete: 'incomplete',
};

export function sameDayTrigger(simulation: SandboxSimulation | undefined, ...texts: Texts): SameDayTrigger {
  const sim = simulation as Schemas['SameDayDeliverySimulation'] | undefined;
  if (sim) return SAME_DAY_OUTCOMES[sim.outcome];
  const text = texts.filter(Boolean).join('\n');
  if (text.includes(SANDBOX_MARKERS.canceled)) return 'canceled';
  if (text.includes(SANDBOX_MARKERS.failed)) return 'failed';
  if (text.includes(SANDBOX_MARKERS.incomplete)) return 'incomplete';
  return 'deliver';
}
