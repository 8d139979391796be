import type { components } from '@pharmacy/contract';
import type { PrescriptionsTable } from '../prescriptions/prescription-tables.js';
import type { TransferMedicationRow } from './transfer-repository.js';
import type { TransferRecord, TransferWithMedications } from './transfer-service.js';

type Schemas = components['schemas'];
type RejectionCode = Schemas['TransferRejectionCode'];

/** The receipt of an accepted transfer request; `request_id` is the transfer's token. */
export function presentTransferReceipt({ transfer, medications }: TransferWithMedications): Schemas['TransferRequestReceipt'] {
  return {
    request_id: transfer.token,
    timestamp: transfer.created_at,
    status: 'success',
    details: {
      message: 'Transfer request received.',
      transfer_token: transfer.token,
      transfer_medications: medications.map((m) => ({ transfer_medication_token: m.token, medication_name: m.medication_name })),
      patient_token: transfer.patient_token,
    },
  };
}

/** A list item of seed 2.4. */
export function presentTransferListItem({ transfer, medications }: TransferWithMedications): Schemas['TransferRequestListItem'] {
  return {
    created_at: transfer.created_at,
    url_token: transfer.token,
    status: transfer.status,
    transfer_medications: medications.map((m) => ({ url_token: m.token, medication_name: m.medication_name })),
  };
}

/** The prescription a transferred medication became, with what the other party reported of its history. */
function presentTransferredPrescription(
  m: TransferMedicationRow,
  rx: PrescriptionsTable,
): Schemas['TransferMedicationPrescription'] {
  return {
    url_token: rx.token,
    medication_name: rx.medication_name,
    prescription_date: rx.date_written,
    prescriber: rx.prescriber,
    last_filled_date: m.source_last_filled_date ?? rx.last_filled_date,
    days_supply: rx.days_supply ?? '',
    num_refills_remaining: rx.refills_remaining,
    num_refills_filled: m.source_refills_filled ?? String(Math.max(0, rx.number_of_refills_allowed - rx.refills_remaining)),
    prescribed_quantity: rx.prescribed_quantity ?? 0,
    prescribed_written_name: rx.prescribed_written_name,
    prescribed_generic_name: rx.prescribed_generic_name,
  };
}

/** The full record of seed 2.4 (the handler answers it as a one-item array). */
export function presentTransfer({ transfer, medications, messages, prescriptions }: TransferRecord): Schemas['TransferRequest'] {
  return {
    created_at: transfer.created_at,
    url_token: transfer.token,
    status: transfer.status,
    cancel_reason: transfer.cancel_reason as RejectionCode | null,
    cancel_reason_other: transfer.cancel_reason_other,
    pharmacy_name: transfer.pharmacy_name,
    pharmacy_phone: transfer.pharmacy_phone,
    prescriber_name: transfer.prescriber_name,
    prescriber_phone: transfer.prescriber_phone,
    notes: transfer.notes,
    metadata: transfer.metadata,
    messages: messages.map((m) => m.message),
    transfer_medications: medications.map((m) => {
      const rx = m.prescription_token ? prescriptions.get(m.prescription_token) : undefined;
      return {
        url_token: m.token,
        rejection_reason: m.rejection_reason as RejectionCode | null,
        rejection_reason_other: m.rejection_reason_other,
        medication_name: m.medication_name,
        prescription: rx ? presentTransferredPrescription(m, rx) : null,
      };
    }),
  };
}
