import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { ownerColumns } from '../db/ownership.js';
import { executeInserts, insertRows } from '../db/transactor.js';
import { nowIso, recordToken } from '../tokens.js';

/** An event as a state change reports it; the outbox adds id, timestamp and delivery state. */
export interface NewEvent {
  callbackType: string;
  /** Absent on notify events (NOTIFY_RX has neither status nor request_id). */
  status?: string;
  requestId?: string;
  details: Record<string, unknown>;
}

/** The `details` of an event as its schema in the spec describes them (`Schemas['OrderEvent']` and so on). */
export type EventDetails<Event extends { details: unknown }> = Event['details'] & Record<string, unknown>;

/** The envelope of seed 6.1, exactly as delivered and listed. */
interface EventEnvelope {
  request_id?: string;
  callback_type: string;
  status?: string;
  details: Record<string, unknown>;
  timestamp: number;
}

export interface RecordedEvent {
  id: string;
  envelope: EventEnvelope;
  /** Recorded `pending`, for a delivery worker; otherwise `failed`, no attempt to be made (no enabled endpoint). */
  attempting: boolean;
}

/**
 * Records an event in the unit of work of the state change it reports (the outbox), so a
 * state change is never without its event nor the reverse; delivery workers pick it up from
 * the same table. `originRequestId` is the request that caused it, logged by its deliveries.
 * `attempting` says whether a worker is to attempt it (`pending`) or it is recorded `failed`
 * with no attempt, as a worker would mark it (its environment has no enabled endpoint).
 */
export async function recordEvent(trx: Db, owner: Owner, event: NewEvent, originRequestId: string, attempting: boolean): Promise<RecordedEvent> {
  const now = nowIso();
  const envelope: EventEnvelope = {
    ...(event.requestId !== undefined ? { request_id: event.requestId } : {}),
    callback_type: event.callbackType,
    ...(event.status !== undefined ? { status: event.status } : {}),
    details: event.details,
    timestamp: Math.floor(Date.parse(now) / 1000),
  };
  const id = `msg_${recordToken()}`;
  // Compiled once (insertRows): every state change records one.
  const insert = insertRows(trx, 'events', [
    {
      id,
      ...ownerColumns(owner),
      callback_type: event.callbackType,
      status: event.status ?? null,
      request_id: event.requestId ?? null,
      payload: JSON.stringify(envelope),
      timestamp: envelope.timestamp,
      created_at: now,
      delivery_status: attempting ? 'pending' : 'failed',
      delivery_status_code: null,
      delivery_attempts: 0,
      last_attempt_at: null,
      next_attempt_at: attempting ? now : null,
      locked_until: null,
      origin_request_id: originRequestId,
    },
  ]);
  await executeInserts(trx, [insert]);
  return { id, envelope, attempting };
}
