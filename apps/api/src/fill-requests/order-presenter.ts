import type { components } from '@pharmacy/contract';
import type { OrderRow } from './order-repository.js';

type Schemas = components['schemas'];

export function presentOrder(row: OrderRow): Schemas['Order'] {
  return {
    order_token: row.token,
    request_id: row.fill_request_token,
    patient_token: row.patient_token,
    status: row.status as Schemas['OrderStatus'],
    date_filled: row.date_filled,
    medications: JSON.parse(row.medications) as Schemas['OrderMedication'][],
    otc_products: JSON.parse(row.otc_products) as Schemas['FillRequestOtcProduct'][],
    carrier: row.carrier,
    tracking_number: row.tracking_number,
    tracking_url: row.tracking_url,
    shipping_method: row.shipping_method as Schemas['ShippingMethod'],
    metadata: row.metadata,
    created_at: row.created_at,
  };
}
