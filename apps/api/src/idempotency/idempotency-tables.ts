import type { SealedColumns } from '../crypto/sealed-columns.js';

/**
 * One `Idempotency-Key` a caller sent, and what came of it: `in_flight` while the first
 * request with it runs (held until `locked_until`), then `completed` with the answer that
 * request gave, replayed until `expires_at`.
 */
export interface IdempotencyKeysTable {
  /** Whose key it is: `<customer id>/<environment>` (keys of different callers never collide). */
  scope: string;
  key: string;
  operation_id: string;
  /** SHA-256 of the operation and its validated path, query and body. */
  fingerprint: string;
  state: 'in_flight' | 'completed';
  /** The lease of the request in flight; a request that died leaves one that expires. */
  locked_until: string | null;
  response_status: number | null;
  /** The answer's body, JSON text sealed with the secrets key (it can hold a secret shown once). */
  response_body: string | null;
  response_type: string | null;
  /** The request that first used the key. */
  request_id: string;
  created_at: string;
  expires_at: string;
}

/** The sealed column of `idempotency_keys` (its record: scope and key), for re-encryption. */
export const idempotencyKeySealedColumns: SealedColumns = {
  table: 'idempotency_keys',
  key: ['scope', 'key'],
  columns: ['response_body'],
};

declare module '../db/database.js' {
  interface Database {
    idempotency_keys: IdempotencyKeysTable;
  }
}
