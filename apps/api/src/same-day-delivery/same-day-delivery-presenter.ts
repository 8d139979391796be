import type { components } from '@pharmacy/contract';
import type { SameDayDeliveryRow } from './same-day-delivery-repository.js';

type Schemas = components['schemas'];

/** The order as the spec's `SameDayDelivery` describes it. */
export function presentSameDayDelivery(row: SameDayDeliveryRow): Schemas['SameDayDelivery'] {
  return {
    id: row.token,
    status: row.status as Schemas['SameDayDeliveryStatus'],
    status_reason: row.status_reason,
    patient_token: row.patient_token,
    prescription_tokens: JSON.parse(row.prescription_tokens) as string[],
    insurance_tokens: JSON.parse(row.insurance_tokens) as string[],
    shipping_address: JSON.parse(row.shipping_address) as Schemas['SameDayDeliveryShippingAddress'],
    external_location: JSON.parse(row.external_location) as Schemas['SameDayDeliveryPickupLocation'],
    delivery_instruction: row.delivery_instruction,
    courier: row.courier === null ? null : (JSON.parse(row.courier) as Schemas['SameDayDeliveryCourier']),
    tracking_url: row.tracking_url,
    eta: row.eta,
    delivered_at: row.delivered_at,
    metadata: row.metadata,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
