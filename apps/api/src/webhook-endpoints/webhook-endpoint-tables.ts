import type { Owned } from '../db/ownership.js';

/** One webhook endpoint per customer and environment. */
export interface WebhookEndpointsTable extends Owned {
  url: string;
  /** The signing secret, AES-256-GCM encrypted (secret-box.ts); never stored in clear. */
  secret_encrypted: string;
  /** The secret's first characters, shown by reads to tell secrets apart. */
  secret_hint: string;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointsTable;
  }
}
