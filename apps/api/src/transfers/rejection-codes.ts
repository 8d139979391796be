import type { components } from '@pharmacy/contract';

export type TransferRejectionCode = components['schemas']['TransferRejectionCode'];
export type TransferContactErrorCode = components['schemas']['TransferContactErrorCode'];

/** Seed 6.3: every transfer rejection code with its description (the events' `description`). */
export const TRANSFER_REJECTIONS: Record<TransferRejectionCode, string> = {
  RX_DOSAGE_MISMATCH: 'dosage does not match prescription',
  RX_FORMULA_MISMATCH: 'formulation does not match prescription',
  RX_NO_REFILLS: 'no refills remaining',
  RX_NONEXISTANT: 'prescription does not exist at the specified pharmacy',
  RX_EXPIRED: 'prescription has expired',
  RX_IS_DAW: 'prescription is dispense as written for brand',
  PATIENT_RECORD_NONEXISTANT: 'no patient record at pharmacy',
  PATIENT_CANCELLED_RX: 'patient cancellation request',
  PATIENT_INFO_MISMATCH: 'patient information does not match prescription',
  PATIENT_CONTACT_REQUESTED: 'pharmacy or prescriber requests patient contact',
  PHARMACY_NO_RESPONSE: 'pharmacy did not respond after 6 days',
  PHARMACY_DECLINED: 'pharmacy refuses transfer',
  PRESCRIBER_DECLINED: 'prescriber declined to provide prescription',
  PRESCRIBER_NO_RESPONSE: 'prescriber did not respond after 6 days',
  TRANSFER_DUPLICATE: 'duplicate transfer',
  TRANSFER_CONTACT_INFO_INCORRECT: 'incorrect pharmacy or prescriber contact information',
  TRANSFER_OTHER_REASON: 'other reason',
  PATIENT_REQUESTED_QUANTITY_TOO_HIGH: 'patient requested a quantity higher than prescribed',
};

export const TRANSFER_CONTACT_ERRORS: Record<TransferContactErrorCode, string> = {
  TRANSFER_NOT_PENDING: 'the transfer request is no longer pending',
  CONTACT_METHOD_UNSUPPORTED: 'the pharmacy or prescriber cannot be reached by fax or phone',
};

export function isRejectionCode(code: string): code is TransferRejectionCode {
  return Object.hasOwn(TRANSFER_REJECTIONS, code);
}
