import type { components } from '@pharmacy/contract';
import type { EventDetails, NewEvent } from '../events/event-outbox.js';
import type { AutoRefillRow } from './auto-refill-tables.js';

type AutoRefillEvent = components['schemas']['AutoRefillEvent'];

function details(sub: AutoRefillRow, cycle: number, next: string | null, message: string): EventDetails<AutoRefillEvent> {
  return {
    auto_refill_id: sub.id,
    prescription_token: sub.prescription_token,
    patient_token: sub.patient_token,
    cycle,
    auto_refill_date: next,
    message,
    metadata: sub.metadata,
  };
}

/** `AUTO_REFILL` success: the refill of `cycle` was submitted as fill request `requestId`. */
export function refillSubmitted(sub: AutoRefillRow, cycle: number, requestId: string, next: string): NewEvent {
  return { callbackType: 'AUTO_REFILL', status: 'success', requestId, details: details(sub, cycle, next, `Refill ${cycle} of auto-refill ${sub.id} submitted.`) };
}

/** `AUTO_REFILL` error: the subscription ended because the refill of `cycle` could not be made. */
export function subscriptionEnded(sub: AutoRefillRow, cycle: number, reason: string): NewEvent {
  return { callbackType: 'AUTO_REFILL', status: 'error', details: details(sub, cycle, null, `Auto-refill ${sub.id} ended: ${reason}`.slice(0, 255)) };
}
