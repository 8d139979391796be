import type { Environment } from '../auth/principal.js';

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

declare module '../db/database.js' {
  interface Database {
    customers: CustomersTable;
    api_keys: ApiKeysTable;
  }
}
