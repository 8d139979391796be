import { sql, type Compilable, type Expression, type Insertable, type SqlBool } from 'kysely';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { ownerColumns } from '../db/ownership.js';
import { executeInserts, insertRows, reuseCompiled } from '../db/transactor.js';
import { shapeName } from '../db/row-shapes.js';
import type { EventsTable } from './event-tables.js';
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
}

/**
 * Records an event in the unit of work of the state change it reports (the outbox), so a
 * state change is never without its event nor the reverse; delivery workers pick it up from
 * the same table. `originRequestId` is the request that caused it, logged by its deliveries.
 * `attempting`, when given, is the SQL condition under which a worker is to attempt it
 * (`pending`); otherwise the insert records it `failed` with no attempt, as a worker would
 * mark it (its environment has no enabled endpoint). The condition is evaluated by the
 * insert itself: no read, so a unit of work that records events stays one statement or
 * one shared transaction where it was (db/gathered-units.ts).
 */
export async function recordEvent(trx: Db, owner: Owner, event: NewEvent, originRequestId: string, attempting?: SqlCondition): Promise<RecordedEvent> {
  const now = nowIso();
  const envelope: EventEnvelope = {
    ...(event.requestId !== undefined ? { request_id: event.requestId } : {}),
    callback_type: event.callbackType,
    ...(event.status !== undefined ? { status: event.status } : {}),
    details: event.details,
    timestamp: Math.floor(Date.parse(now) / 1000),
  };
  const id = `msg_${recordToken()}`;
  const row = {
    id,
    ...ownerColumns(owner),
    callback_type: event.callbackType,
    status: event.status ?? null,
    request_id: event.requestId ?? null,
    payload: JSON.stringify(envelope),
    timestamp: envelope.timestamp,
    created_at: now,
    delivery_status_code: null,
    delivery_attempts: 0,
    last_attempt_at: null,
    locked_until: null,
    origin_request_id: originRequestId,
  };
  // Compiled once (insertRows, reuseCompiled): every state change records one.
  const insert = attempting ? judgedInsert(trx, row, attempting, now) : insertRows(trx, 'events', [{ ...row, delivery_status: 'pending', next_attempt_at: now }]);
  await executeInserts(trx, [insert]);
  return { id, envelope };
}

/**
 * The event's insert with its delivery state decided by `attempting`: `pending` and due now
 * when it holds, `failed` and due never otherwise. Compiled once (`reuseCompiled`): its
 * parameters are the row's values in column order, then the condition's in each `case`.
 */
function judgedInsert(trx: Db, row: Omit<Insertable<EventsTable>, 'delivery_status' | 'next_attempt_at'>, attempting: SqlCondition, now: string): Compilable {
  return {
    compile() {
      const columns = Object.keys(row);
      const parameters = [...Object.values(row), ...attempting.parameters, ...attempting.parameters, now];
      return reuseCompiled(trx, `insertJudgedEvent:${attempting.name}:${shapeName('events', columns)}`, parameters, () =>
        trx.insertInto('events').values({
          ...row,
          delivery_status: sql<string>`case when ${attempting.expression} then 'pending' else 'failed' end`,
          next_attempt_at: sql<string | null>`case when ${attempting.expression} then ${now} else null end`,
        }),
      );
    },
  };
}

/** An SQL condition and its parameters in the order it compiles them (so a statement that holds it is compiled once). */
export interface SqlCondition {
  /** Names the condition's SQL (its text is the same for every value of its parameters). */
  name: string;
  expression: Expression<SqlBool>;
  parameters: readonly unknown[];
}
