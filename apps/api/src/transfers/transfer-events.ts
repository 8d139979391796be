import type { components } from '@pharmacy/contract';
import type { EventDetails as Details, NewEvent } from '../events/event-outbox.js';
import type { PrescriptionsTable } from '../prescriptions/prescription-tables.js';
import {
  TRANSFER_CONTACT_ERRORS,
  TRANSFER_REJECTIONS,
  type TransferContactErrorCode,
  type TransferRejectionCode,
} from './rejection-codes.js';
import type { TransferMedicationsTable, TransferRequestsTable } from './transfer-tables.js';

/**
 * The events of a transfer request's lifecycle, exactly as the spec's event schemas
 * (spec/webhooks/*.yaml) describe their `details`. Events carry tokens, never personal data.
 */
type Schemas = components['schemas'];

export function transferContactSuccess(
  transfer: TransferRequestsTable,
  contact: { name: string; method: 'fax' | 'phone'; number: string },
): NewEvent {
  const details: Details<Schemas['TransferContactSuccessEvent']> = {
    metadata: transfer.metadata,
    message: `Transfer request ${contact.method === 'fax' ? 'faxed to' : 'phoned to'} ${contact.name}.`,
    patient_token: transfer.patient_token,
    transfer_token: transfer.token,
    contact_name: contact.name,
    contact_method: contact.method,
    contact_number: contact.number,
  };
  return { callbackType: 'TRANSFER_CONTACT', status: 'success', requestId: transfer.token, details };
}

export function transferContactError(
  transfer: TransferRequestsTable,
  code: TransferContactErrorCode | TransferRejectionCode,
): NewEvent {
  const reason = (TRANSFER_CONTACT_ERRORS as Record<string, string>)[code] ?? TRANSFER_REJECTIONS[code as TransferRejectionCode];
  const details: Details<Schemas['TransferContactErrorEvent']> = {
    error_code: code,
    metadata: transfer.metadata,
    transfer_token: transfer.token,
    message: `Contact attempt failed: ${reason}.`,
  };
  return { callbackType: 'TRANSFER_CONTACT', status: 'error', requestId: transfer.token, details };
}

export function transferSuccess(
  transfer: TransferRequestsTable,
  moved: { medication: TransferMedicationsTable; rx: PrescriptionsTable }[],
): NewEvent {
  const details: Details<Schemas['TransferSuccessEvent']> = {
    metadata: transfer.metadata,
    message: 'Transfer completed.',
    patient_token: transfer.patient_token,
    medications: moved.map(({ medication, rx }) => ({
      transfer_medication_token: medication.token,
      requested_medication_name: medication.medication_name,
      last_filled_date: medication.source_last_filled_date ?? rx.last_filled_date,
      prescription_token: rx.token,
      prescriber: rx.prescriber,
      medication_name: rx.medication_name,
      medication_sig: rx.medication_sig ?? '',
      num_refills_remaining: rx.refills_remaining,
      quantity: rx.prescribed_quantity ?? 0,
      days_supply: Number.parseInt(rx.days_supply ?? '0', 10) || 0,
      dea_schedule: rx.dea_schedule,
    })),
  };
  return { callbackType: 'TRANSFER', status: 'success', requestId: transfer.token, details };
}

/** `message` holds the specifics only for TRANSFER_OTHER_REASON; otherwise it restates the code's description. */
export function transferError(transfer: TransferRequestsTable, code: TransferRejectionCode, specifics?: string | null): NewEvent {
  const description = TRANSFER_REJECTIONS[code];
  const details: Details<Schemas['TransferErrorEvent']> = {
    metadata: transfer.metadata,
    message: code === 'TRANSFER_OTHER_REASON' && specifics ? specifics : `Transfer rejected: ${description}.`,
    patient_token: transfer.patient_token,
    error_code: code,
    description,
  };
  return { callbackType: 'TRANSFER', status: 'error', requestId: transfer.token, details };
}
