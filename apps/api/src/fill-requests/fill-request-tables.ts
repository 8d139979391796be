import type { Flag } from '../db/database.js';
import type { Owned } from '../db/ownership.js';

/** A submitted fill request; `payload` keeps the body as submitted (JSON) for the read. */
export interface FillRequestsTable extends Owned {
  token: string;
  patient_token: string;
  /** pending, triage, scheduled, filled, error or canceled (FillRequestStatus). */
  status: string;
  patient_payment_type: string;
  metadata: string | null;
  shipping_method: string;
  replacement_order: string | null;
  check_in: Flag;
  /** JSON of the create body as answered by the read (insurances by token, defaults applied). */
  payload: string;
  /** The order created when the request was processed; null until then. */
  order_token: string | null;
  created_at: string;
  updated_at: string;
}

/** One prescription filled by a fill request: what the fill dispensed and what remained after it. */
export interface FillRequestMedicationsTable {
  fill_request_token: string;
  position: number;
  prescription_token: string;
  /** 0 for the original fill, then 1, 2... */
  fill_number: number;
  quantity: number;
  days_supply: number;
  refills_remaining: number;
  quantity_remaining: number;
}

/**
 * An item of a fill request canceled at the customer's request (`POST /v1/cancel_request`,
 * migration 017): a medication by its prescription token, an OTC product by its SKU (the
 * `item` the request named it by). A canceled item is never dispensed.
 */
export interface FillRequestCancellationsTable {
  fill_request_token: string;
  /** `medication` or `otc_product`. */
  item_type: string;
  /** The prescription token of a medication; the SKU of an OTC product. */
  item: string;
  canceled_at: string;
}

/** The order a processed fill request produced. Medications are a JSON snapshot of the dispense. */
export interface OrdersTable extends Owned {
  token: string;
  fill_request_token: string;
  patient_token: string;
  /** pending_shipment, shipped, delivered, returned or canceled (OrderStatus). */
  status: string;
  date_filled: string;
  /** JSON array of OrderMedication. */
  medications: string;
  /** JSON array of FillRequestOtcProduct. */
  otc_products: string;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  shipping_method: string;
  metadata: string | null;
  created_at: string;
}

declare module '../db/database.js' {
  interface Database {
    fill_requests: FillRequestsTable;
    fill_request_medications: FillRequestMedicationsTable;
    fill_request_cancellations: FillRequestCancellationsTable;
    orders: OrdersTable;
  }
}
