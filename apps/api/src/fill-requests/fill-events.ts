import type { components } from '@pharmacy/contract';
import type { EventDetails as Details, NewEvent } from '../events/event-outbox.js';
import type { OrdersTable } from './fill-request-tables.js';

/**
 * The events of a fill request's lifecycle (`ORDER`, `SHIPMENT`), exactly as the spec's
 * event schemas (spec/webhooks/*.yaml) describe their `details`. Tokens, never personal data.
 */
type Schemas = components['schemas'];

/** NDCs are 10 or 11 digits, possibly with hyphens; anything else is reported as the unknown NDC. */
const NDC = /^[0-9-]{10,13}$/;
const UNKNOWN_NDC = '00000000000';

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
 * order exists, so `order_token` and the fill and tracking fields are null; a request
 * dispensed after triage gets its order with the `ORDER` success that follows.
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

/** `SHIPMENT`: a carrier milestone of an order (an exception or a return is an error). */
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
