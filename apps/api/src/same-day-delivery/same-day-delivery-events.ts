import type { components } from '@pharmacy/contract';
import type { EventDetails as Details, NewEvent } from '../events/event-outbox.js';
import type { SameDayDeliveryRow } from './same-day-delivery-repository.js';

type Schemas = components['schemas'];
export type SameDayDeliveryStatus = Schemas['SameDayDeliveryStatus'];

/** The statuses reported as `error` (the order did not arrive whole). */
const ERROR_STATUSES: SameDayDeliveryStatus[] = ['FAILED', 'CANCELED', 'INCOMPLETE'];

/**
 * `SAME_DAY_DELIVERY`: the order moved to its current status, exactly as the spec's
 * `SameDayDeliveryEvent` describes it. Tokens only: no names, addresses or courier details.
 */
export function sameDayDeliveryMoved(row: SameDayDeliveryRow, message: string): NewEvent {
  const status = row.status as SameDayDeliveryStatus;
  const details: Details<Schemas['SameDayDeliveryEvent']> = {
    id: row.token,
    delivery_status: status,
    status_reason: row.status_reason,
    patient_token: row.patient_token,
    prescription_tokens: JSON.parse(row.prescription_tokens) as string[],
    message,
    eta: row.eta,
    tracking_url: row.tracking_url,
    metadata: row.metadata,
  };
  return { callbackType: 'SAME_DAY_DELIVERY', status: ERROR_STATUSES.includes(status) ? 'error' : 'success', requestId: row.token, details };
}
