import type { Environment } from '../auth/principal.js';

/**
 * An account of a tenant's (a customer's) users, in one environment. When deleted, the row
 * stays as a record that it existed (id, owner, created_at, deleted_at) with every personal
 * field emptied, its consents gone.
 */
export interface AccountsTable {
  id: string;
  customer_id: string;
  environment: Environment;
  /** Lower-cased: one live account per address and owner. Null once deleted. */
  email: string | null;
  /** `scrypt$...` (passwords.ts); the password itself is never stored. Null once deleted. */
  password_hash: string | null;
  /** Sealed (account-sealed-fields.ts); null when not given, or once deleted. */
  contact_name_encrypted: string | null;
  contact_number_encrypted: string | null;
  created_at: string;
  deleted_at: string | null;
}

export type ConsentType = 'terms_of_service' | 'privacy_policy' | 'notice_of_privacy_practices';

/** A consent an account gave, once per type, with when it was recorded. */
export interface AccountConsentsTable {
  id: string;
  account_id: string;
  type: ConsentType;
  created_at: string;
}

declare module '../db/database.js' {
  interface Database {
    accounts: AccountsTable;
    account_consents: AccountConsentsTable;
  }
}
