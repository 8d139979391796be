import type { SealedColumns } from '../crypto/sealed-columns.js';
import type { Owned } from '../db/ownership.js';

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** One webhook endpoint per customer and environment. */
export interface WebhookEndpointsTable extends Owned {
  url: string;
  /** The signing secret, sealed (crypto/secret-box.ts) in the context of its owner; never stored in clear. */
  secret_encrypted: string;
  /** The secret's first characters, shown by reads to tell secrets apart. */
  secret_hint: string;
  created_at: string;
  updated_at: string;
  /** `disabled`: events due are not attempted (they are marked failed) until the endpoint is enabled again. */
  status: WebhookEndpointStatus;
  disabled_at: string | null;
  /** The notice the endpoint's read shows: why it was disabled and how to enable it. */
  disabled_reason: string | null;
  /** Failed attempts since the last success. */
  consecutive_failures: number;
  /** The first failed attempt since the last success; null while the last attempt succeeded. */
  failing_since: string | null;
}

/** The sealed column of `webhook_endpoints` (its record: customer and environment), for re-encryption. */
export const webhookEndpointSealedColumns: SealedColumns = {
  table: 'webhook_endpoints',
  key: ['customer_id', 'environment'],
  columns: ['secret_encrypted'],
};

declare module '../db/database.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointsTable;
  }
}
