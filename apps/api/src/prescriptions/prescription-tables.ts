import type { Flag } from '../db/database.js';
import type { Owned } from '../db/ownership.js';

export interface PrescriptionsTable extends Owned {
  token: string;
  patient_token: string;
  rx_number: string;
  /** `active`, `on_hold`, `transferred` or `inactive`. */
  status: string;
  is_refill: Flag;
  medication_name: string;
  medication_sig: string | null;
  medication_id: string | null;
  origin: string | null;
  prescribed_brand_name: string | null;
  prescribed_drug_strength: string | null;
  prescribed_generic_name: string | null;
  prescribed_written_name: string | null;
  prescribed_quantity: number | null;
  prescribed_quantity_unit: string | null;
  prescribed_ndc: string | null;
  original_prescribed_ndc: string | null;
  prescriber: string | null;
  prescriber_npi: string | null;
  prescriber_order_number: string | null;
  date_written: string | null;
  date_filled_utc: string | null;
  last_filled_date: string | null;
  expiration_date_utc: string | null;
  days_supply: string | null;
  number_of_refills_allowed: number;
  refills_remaining: number;
  quantity_remaining: number;
  current_rx_status_text: string | null;
  created_at: string;
  // Details of seed 2.3 (migration 002).
  /** Dispense as written; null for historical prescriptions. */
  is_daw: Flag | null;
  /** 0 when not controlled, 1 to 5 for schedules I to V. */
  dea_schedule: number;
  notes: string | null;
  /** The prescriber record, when the prescriber is known by NPI. */
  prescriber_token: string | null;
  prescriber_address_name: string | null;
  prescriber_address_company: string | null;
  prescriber_address_street1: string | null;
  prescriber_address_street2: string | null;
  prescriber_address_city: string | null;
  prescriber_address_state: string | null;
  prescriber_address_zip: string | null;
  prescriber_address_country: string | null;
  prescriber_address_phone: string | null;
  prescriber_address_email: string | null;
  /** JSON array of ICD-10 codes. */
  icd10_codes: string;
  /** JSON array of ICD-9 codes. */
  icd9_codes: string;
  on_formulary: Flag;
  formulary_ndc: string | null;
}

declare module '../db/database.js' {
  interface Database {
    prescriptions: PrescriptionsTable;
  }
}
