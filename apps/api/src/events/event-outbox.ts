import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { nowIso, randomToken } from '../tokens.js';

/** An event as a state change reports it; the outbox adds id, timestamp and delivery state. */
export interface NewEvent {
  callbackType: string;
  /** Absent on notify events (NOTIFY_RX has neither status nor request_id). */
  status?: string;
  requestId?: string;
  details: Record<string, unknown>;
}

/** The envelope of seed 6.1, exactly as delivered and listed. */
export interface EventEnvelope {
  request_id?: string;
  callback_type: string;
  status?: string;
  details: Record<string, unknown>;
  timestamp: number;
}

/**
 * Records events in the unit of work of the state change they report (pass its `trx`), so
 * a state change is never without its event nor the reverse. Delivery workers pick them up
 * from the same table.
 */
export class EventOutbox {
  async record(trx: Db, owner: Owner, event: NewEvent): Promise<{ id: string; envelope: EventEnvelope }> {
    const now = nowIso();
    const envelope: EventEnvelope = {
      ...(event.requestId !== undefined ? { request_id: event.requestId } : {}),
      callback_type: event.callbackType,
      ...(event.status !== undefined ? { status: event.status } : {}),
      details: event.details,
      timestamp: Math.floor(Date.parse(now) / 1000),
    };
    const id = `msg_${randomToken(24)}`;
    await trx
      .insertInto('events')
      .values({
        id,
        customer_id: owner.customerId,
        environment: owner.environment,
        callback_type: event.callbackType,
        status: event.status ?? null,
        request_id: event.requestId ?? null,
        payload: JSON.stringify(envelope),
        timestamp: envelope.timestamp,
        created_at: now,
        delivery_status: 'pending',
        delivery_status_code: null,
        delivery_attempts: 0,
        last_attempt_at: null,
        next_attempt_at: now,
        locked_until: null,
      })
      .execute();
    return { id, envelope };
  }
}
