import type { Owned } from '../db/ownership.js';

/** A same-day delivery order (migration 021); the JSON columns keep what was sent, as answered. */
export interface SameDayDeliveriesTable extends Owned {
  token: string;
  patient_token: string;
  /** PENDING, AWAITING_PICKUP, IN_TRANSIT, DELIVERED, FAILED, CANCELED or INCOMPLETE (SameDayDeliveryStatus). */
  status: string;
  /** Why the order is FAILED, CANCELED or INCOMPLETE; null otherwise. */
  status_reason: string | null;
  /** JSON array of prescription tokens. */
  prescription_tokens: string;
  /** JSON array of insurance tokens. */
  insurance_tokens: string;
  /** JSON of SameDayDeliveryShippingAddress, as sent. */
  shipping_address: string;
  /** JSON of SameDayDeliveryPickupLocation: the reference data's location, or the one sent. */
  external_location: string;
  delivery_instruction: string | null;
  metadata: string | null;
  /** JSON of SameDayDeliveryCourier; null until a courier is booked. */
  courier: string | null;
  tracking_url: string | null;
  eta: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    same_day_deliveries: SameDayDeliveriesTable;
  }
}
