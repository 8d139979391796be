import type { Owned } from '../db/ownership.js';

/** How an attempt ended: the receiver answered a `2xx`, or it did not. */
export type AttemptOutcome = 'delivered' | 'failed';

/**
 * Why an attempt got no HTTP answer: `timeout` (none within the delivery timeout),
 * `refused-address` (the host is not public and production only reaches public ones),
 * `connection-refused`, `dns` (the host did not resolve), `tls`, `connection` (reset or
 * closed midway), `invalid-url`.
 */
export type AttemptErrorKind = 'timeout' | 'refused-address' | 'connection-refused' | 'dns' | 'tls' | 'connection' | 'invalid-url';

/** One delivery attempt of an event (written with the event's outcome); never the receiver's body. */
export interface WebhookDeliveryAttemptsTable extends Owned {
  /** `att_...` */
  id: string;
  event_id: string;
  /** The event's attempt number (1 to 8), counted again from 1 after a redelivery. */
  attempt: number;
  /** When the attempt ended (ISO 8601). */
  attempted_at: string;
  outcome: AttemptOutcome;
  /** The receiver's HTTP status; null when it did not answer. */
  status_code: number | null;
  /** Why there was no answer; null when there was one. */
  error_kind: AttemptErrorKind | null;
  duration_ms: number;
}

declare module '../db/database.js' {
  interface Database {
    webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  }
}
