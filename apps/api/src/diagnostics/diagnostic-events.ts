import type { NewEvent } from '../events/event-outbox.js';
import type { DiagnosticOrdersTable, DiagnosticOrderStatus } from './diagnostic-order-tables.js';

/** The event each status is reported by (the spec's `DIAGNOSTICS_*` webhooks). */
const CALLBACK_TYPES: Record<DiagnosticOrderStatus, string> = {
  ORDER_SUCCESS: 'DIAGNOSTICS_ORDER_SUCCESS',
  SHIPPED: 'DIAGNOSTICS_ORDER_SHIPPED',
  IN_TRANSIT: 'DIAGNOSTICS_ORDER_IN_TRANSIT',
  DELIVERED_TO_PATIENT: 'DIAGNOSTICS_ORDER_DELIVERED_TO_PATIENT',
  SHIPPED_TO_LAB: 'DIAGNOSTICS_ORDER_SHIPPED_TO_LAB',
  IN_TRANSIT_TO_LAB: 'DIAGNOSTICS_ORDER_IN_TRANSIT_TO_LAB',
  DELIVERED_TO_LAB: 'DIAGNOSTICS_ORDER_DELIVERED_TO_LAB',
  LAB_ACCESSED_KIT: 'DIAGNOSTICS_LAB_ACCESSED_KIT',
  RESULTS_AVAILABLE: 'DIAGNOSTICS_RESULTS_AVAILABLE',
  REJECTED: 'DIAGNOSTICS_ORDER_REJECTED',
};

const TO_PATIENT: readonly DiagnosticOrderStatus[] = ['SHIPPED', 'IN_TRANSIT', 'DELIVERED_TO_PATIENT'];
const TO_LAB: readonly DiagnosticOrderStatus[] = ['SHIPPED_TO_LAB', 'IN_TRANSIT_TO_LAB', 'DELIVERED_TO_LAB'];

/** The carrier leg in progress at a milestone: the kit's way to the patient, the sample's way to the lab, or none. */
function leg(order: DiagnosticOrdersTable): { carrier: string | null; tracking_number: string | null } {
  if (TO_PATIENT.includes(order.status)) return { carrier: order.shipment_carrier, tracking_number: order.shipment_tracking_number };
  if (TO_LAB.includes(order.status)) return { carrier: order.return_carrier, tracking_number: order.return_tracking_number };
  return { carrier: null, tracking_number: null };
}

/**
 * The event of the milestone the order has just reached, as the spec's
 * `DiagnosticsEventDetails` describes it: a request event whose `request_id` is the
 * order's id; tokens and ids, never personal data.
 */
export function milestoneEvent(order: DiagnosticOrdersTable): NewEvent {
  const rejected = order.status === 'REJECTED';
  const rejection = rejected
    ? {
        reason: order.rejection_reason!,
        rejected_at: order.rejected_at!,
        fixable: order.rejection_fixable === 1,
        ...(order.rejection_panel_name ? { panel_name: order.rejection_panel_name } : {}),
      }
    : null;
  return {
    callbackType: CALLBACK_TYPES[order.status],
    status: rejected ? 'error' : 'success',
    requestId: order.id,
    details: {
      order_id: order.id,
      patient_token: order.patient_token,
      status: order.status,
      occurred_at: order.updated_at,
      ...leg(order),
      kit_serial: order.kit_serial,
      results_available: order.status === 'RESULTS_AVAILABLE',
      rejection,
    },
  };
}
