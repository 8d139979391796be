import type { components } from '@pharmacy/contract';
import type { PharmacyIdentity } from '../config.js';
import type { PrescriptionsTable } from '../db/tables.js';
import type { NewEvent } from '../events/event-outbox.js';
import type { OrdersTable } from '../fill-requests/fill-request-tables.js';
import type { DirectTransfersTable, TransferMedicationsTable, TransferRequestsTable } from '../transfers/transfer-tables.js';
import {
  TRANSFER_CONTACT_ERRORS,
  TRANSFER_REJECTIONS,
  type TransferContactErrorCode,
  type TransferRejectionCode,
} from './rejection-codes.js';

/**
 * The events of the pharmacy's operations, exactly as the spec's event schemas
 * (spec/webhooks/*.yaml) describe their `details`. Events carry tokens, never personal data.
 */
type Schemas = components['schemas'];
type Details<T extends { details: unknown }> = T['details'] & Record<string, unknown>;

/** NDCs are 10 or 11 digits, possibly with hyphens; anything else is reported as the unknown NDC. */
const NDC = /^[0-9-]{10,13}$/;
const UNKNOWN_NDC = '00000000000';

export function notifyRx(
  rx: PrescriptionsTable,
  pharmacy: PharmacyIdentity,
  extra: { duplicates?: string[]; transferPrescriptionToken?: string } = {},
): NewEvent {
  const details: Details<Schemas['NotifyRxEvent']> = {
    medication_name: rx.medication_name,
    prescriber: rx.prescriber,
    prescription_token: rx.token,
    patient_token: rx.patient_token,
    ...(extra.transferPrescriptionToken ? { transfer_prescription_token: extra.transferPrescriptionToken } : {}),
    patient_token_duplicates: extra.duplicates ?? [],
    merged_patients: [],
    location: pharmacy.location,
    rx_link: `/v1/prescription/${rx.token}`,
  };
  return { callbackType: 'NOTIFY_RX', details };
}

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

export function directTransferSuccess(dt: DirectTransfersTable, rx: PrescriptionsTable): NewEvent {
  const details: Details<Schemas['DirectTransferSuccessEvent']> = {
    metadata: null,
    message: 'Direct transfer accepted.',
    patient_token: dt.patient_token,
    direct_transfer_token: dt.token,
    prescription_token: rx.token,
  };
  return { callbackType: 'DIRECT_TRANSFER', status: 'success', requestId: dt.token, details };
}

/** The message starts with the rejection notice, then the reason. */
export function directTransferRejectionMessage(reason: string): string {
  const text = reason.trim().replace(/\.$/, '');
  return `Direct transfer rejected: ${text}.`;
}

export function directTransferError(dt: DirectTransfersTable, message: string): NewEvent {
  const details: Details<Schemas['DirectTransferErrorEvent']> = {
    metadata: null,
    message,
    patient_token: dt.patient_token,
    direct_transfer_token: dt.token,
  };
  return { callbackType: 'DIRECT_TRANSFER', status: 'error', requestId: dt.token, details };
}

function eventMedication(m: Schemas['OrderMedication']): Schemas['OrderEventMedication'] {
  return {
    medication_name: m.medication_name,
    dispensed_medication_name: m.dispensed_medication_name,
    requested_medication_name: m.requested_medication_name,
    days_supply: m.days_supply,
    quantity: m.quantity,
    fill_number: m.fill_number,
    rx_number: m.rx_number,
    total_refills_allowed: m.total_refills_allowed,
    prescription_token: m.prescription_token,
    medication_token: m.medication_token,
    dispensed_ndc: m.dispensed_ndc && NDC.test(m.dispensed_ndc) ? m.dispensed_ndc : UNKNOWN_NDC,
    remaining_refills: m.remaining_refills,
  };
}

/** `ORDER` success: filled and pending shipment. */
export function orderFilled(order: OrdersTable): NewEvent {
  const details: Details<Schemas['OrderEvent']> = {
    metadata: order.metadata,
    message: 'Order filled; pending shipment.',
    date_filled: order.date_filled,
    medications: (JSON.parse(order.medications) as Schemas['OrderMedication'][]).map(eventMedication),
    order_token: order.token,
    tracking_url: order.tracking_url,
    tracking_number: order.tracking_number,
    carrier: order.carrier,
    patient_token: order.patient_token,
  };
  return { callbackType: 'ORDER', status: 'success', requestId: order.fill_request_token, details };
}

/**
 * `ORDER` triage (a pharmacist reviews the request) or error (it cannot be filled): no
 * order exists, so the fill and tracking fields are null, and `order_token` (which the
 * schema requires) is a fresh token no order is readable by; a request dispensed after
 * triage gets its order, and its own token, with the `ORDER` success that follows.
 */
export function orderNotFilled(
  request: { token: string; metadata: string | null; patient_token: string },
  status: 'triage' | 'error',
  message: string,
): NewEvent {
  const details: Details<Schemas['OrderEvent']> = {
    metadata: request.metadata,
    message,
    date_filled: null,
    medications: [],
    order_token: null,
    tracking_url: null,
    tracking_number: null,
    carrier: null,
    patient_token: request.patient_token,
  };
  return { callbackType: 'ORDER', status, requestId: request.token, details };
}

export type ShipmentStatus = Schemas['ShipmentStatus'];
export const SHIPMENT_STATUSES: ShipmentStatus[] = [
  'LABEL_CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED', 'EXCEPTION', 'RETURNED',
];

const SHIPMENT_MESSAGES: Record<ShipmentStatus, string> = {
  LABEL_CREATED: 'Shipping label created.',
  PICKED_UP: 'Picked up by the carrier.',
  IN_TRANSIT: 'In transit to the destination.',
  OUT_FOR_DELIVERY: 'Out for delivery.',
  DELIVERED: 'Delivered.',
  EXCEPTION: 'The carrier reported a delivery exception.',
  RETURNED: 'Returned to the pharmacy.',
};

export function shipment(order: OrdersTable, status: ShipmentStatus, eta: string | null): NewEvent {
  const details: Details<Schemas['ShipmentEvent']> = {
    metadata: order.metadata,
    status,
    message: SHIPMENT_MESSAGES[status],
    eta,
    tracking_number: order.tracking_number ?? '',
    tracking_url: order.tracking_url ?? '',
    carrier: order.carrier ?? '',
  };
  return {
    callbackType: 'SHIPMENT',
    status: status === 'EXCEPTION' || status === 'RETURNED' ? 'error' : 'success',
    requestId: order.fill_request_token,
    details,
  };
}
