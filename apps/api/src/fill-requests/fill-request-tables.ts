import type { Flag, Owned } from '../db/tables.js';

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

/** A patient's insurance plan. `cardholder_id` is stored whole and answered masked. */
export interface InsurancesTable extends Owned {
  token: string;
  patient_token: string;
  cardholder_id: string;
  rx_bin: string;
  rx_group: string | null;
  pcn: string | null;
  phone_number: string | null;
  insurance_card_image_url: string | null;
  created_at: string;
}

/** The patient's cost of one prescription under one plan, adjudicated asynchronously. */
export interface CopayRequestsTable extends Owned {
  token: string;
  fill_request_token: string;
  position: number;
  patient_token: string;
  prescription_token: string;
  insurance_token: string;
  /** pending, completed or failed. */
  status: string;
  /** In cents, so no binary fraction ever rounds money; null until completed. */
  copay_amount_cents: number | null;
  days_supply: number;
  quantity: number;
  message: string | null;
  created_at: string;
  completed_at: string | null;
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

/** Tables of fill requests, orders, insurances and copay requests (migration 003). */
export interface FillRequestTables {
  fill_requests: FillRequestsTable;
  fill_request_medications: FillRequestMedicationsTable;
  insurances: InsurancesTable;
  copay_requests: CopayRequestsTable;
  orders: OrdersTable;
}
