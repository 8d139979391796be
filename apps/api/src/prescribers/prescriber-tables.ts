import type { Owned } from '../db/ownership.js';

/** A prescriber; one record per NPI per customer and environment. */
export interface PrescribersTable extends Owned {
  token: string;
  npi: string;
  first_name: string;
  last_name: string;
  dea_number: string | null;
  address_name: string;
  address_company: string | null;
  address_street1: string;
  address_street2: string | null;
  address_city: string;
  address_state: string;
  address_zip: string;
  /** Empty when unknown, as every other non-null part. */
  address_country: string;
  address_phone: string;
  address_email: string;
  phone: string;
  fax: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    prescribers: PrescribersTable;
  }
}
