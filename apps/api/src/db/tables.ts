/** Row types of every table, as Kysely sees them. Booleans are stored as 0/1 on both dialects. */
import type { Environment } from '../auth/principal.js';
import type { EventTables } from '../events/event-tables.js';
import type { FillRequestTables } from '../fill-requests/fill-request-tables.js';
import type { SandboxTables } from '../sandbox/sandbox-tables.js';
import type { TransferTables } from '../transfers/transfer-tables.js';
import type { WebhookEndpointTables } from '../webhook-endpoints/webhook-endpoint-tables.js';

export type Flag = 0 | 1;

export interface CustomersTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  /** SHA-256 of the key, hex; the key itself is never stored. */
  key_hash: string;
  customer_id: string;
  environment: Environment;
  /** The first characters of the key, to tell keys apart in listings. */
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** Scopes every customer-owned record. */
export interface Owned {
  customer_id: string;
  environment: Environment;
}

export interface PatientsTable extends Owned {
  token: string;
  /** Hash of the identity fields that dedupe creates. */
  match_key: string;
  first_name: string;
  last_name: string;
  first_name_norm: string;
  last_name_norm: string;
  guardian: string | null;
  dob: string;
  gender: string;
  prefix: string | null;
  suffix: string | null;
  ssn: string | null;
  ssn_serial: string | null;
  mbi: string | null;
  communications_opt_in: Flag | null;
  id_image: string | null;
  zip: string | null;
  company: string | null;
  street1: string | null;
  street2: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  phone: string | null;
  email: string | null;
  language_preference: string | null;
  species: string;
  viewed_notice_of_privacy_practices: Flag | null;
  viewed_notice_of_privacy_practices_date: string | null;
  created_at: string;
  updated_at: string;
}

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

interface CoreTables {
  customers: CustomersTable;
  api_keys: ApiKeysTable;
  patients: PatientsTable;
  prescriptions: PrescriptionsTable;
}

/** Every table; each area declares its own in `<area>/*-tables.ts`. */
export interface Database extends CoreTables, TransferTables, FillRequestTables, EventTables, SandboxTables, WebhookEndpointTables {}
