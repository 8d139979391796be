import type { Generated } from 'kysely';
import type { Owned } from '../db/ownership.js';

/**
 * One row per event: the envelope sent to the customer's endpoint (and listed again by
 * the event feed) together with the state of its delivery. Written in the same unit of
 * work as the state change it reports (the outbox), so neither exists without the other.
 */
export interface EventsTable extends Owned {
  /** `msg_...`: the event's id, sent as `webhook-id` on every delivery attempt. */
  id: string;
  /** Insertion order within the database: the feed's order and cursor (PostgreSQL answers it as a string). */
  sequence: Generated<number | string>;
  callback_type: string;
  status: string | null;
  request_id: string | null;
  /** The envelope exactly as delivered (JSON text). */
  payload: string;
  /** Seconds since the epoch, as in the envelope (PostgreSQL answers a bigint as a string). */
  timestamp: number | string;
  created_at: string;
  /** `pending`, `retrying`, `delivered` or `failed`. */
  delivery_status: string;
  delivery_status_code: number | null;
  delivery_attempts: number;
  last_attempt_at: string | null;
  /** When a delivery worker may next attempt it; null once delivered or failed. */
  next_attempt_at: string | null;
  /** A worker's claim on the event until then (several processes may share PostgreSQL). */
  locked_until: string | null;
  /** The request that caused the event (an API request's id, `x-request-id`), logged by its deliveries. */
  origin_request_id: string | null;
}

declare module '../db/database.js' {
  interface Database {
    events: EventsTable;
  }
}
