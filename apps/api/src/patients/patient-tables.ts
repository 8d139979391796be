import type { Flag } from '../db/database.js';
import type { Owned } from '../db/ownership.js';

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
  /** The SSN, SSN serial, MBI and ID image URL, each sealed (patient-sealed-fields.ts); never in clear. */
  ssn_encrypted: string | null;
  ssn_serial_encrypted: string | null;
  mbi_encrypted: string | null;
  communications_opt_in: Flag | null;
  id_image_encrypted: string | null;
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

declare module '../db/database.js' {
  interface Database {
    patients: PatientsTable;
  }
}
