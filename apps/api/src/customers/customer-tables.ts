import type { Environment } from '../auth/principal.js';

export interface CustomersTable {
  id: string;
  name: string;
  /** The customer as a tenant of the platform interfaces (`x-tenant-id`, the issuer of its tokens); a DNS label. */
  tenant_id: string;
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

/** An OAuth 2.0 machine client of a customer (client credentials), of one environment, like an API key. */
export interface OAuthClientsTable {
  client_id: string;
  customer_id: string;
  environment: Environment;
  /** SHA-256 of the secret, hex; the secret itself is never stored. */
  secret_hash: string;
  /** The scopes granted, space-separated (empty: none). */
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

declare module '../db/database.js' {
  interface Database {
    customers: CustomersTable;
    api_keys: ApiKeysTable;
    oauth_clients: OAuthClientsTable;
  }
}
