import type { Owned } from '../db/ownership.js';

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

declare module '../db/database.js' {
  interface Database {
    insurances: InsurancesTable;
  }
}
