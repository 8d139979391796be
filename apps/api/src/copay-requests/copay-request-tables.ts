import type { Owned } from '../db/ownership.js';

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

declare module '../db/database.js' {
  interface Database {
    copay_requests: CopayRequestsTable;
  }
}
