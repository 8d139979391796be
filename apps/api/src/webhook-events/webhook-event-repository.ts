import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';

/** An event row as the feed reads it (`sequence` and `timestamp` as numbers on both dialects). */
export interface FeedEventRow {
  id: string;
  sequence: number;
  timestamp: number;
  payload: string;
  delivery_status: string;
  delivery_status_code: number | null;
  delivery_attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

export type TimestampOperator = '<' | '>' | '<=' | '>=' | '=';

/** The feed's position: after the event with this timestamp and sequence. */
interface FeedPosition {
  timestamp: number;
  sequence: number;
}

export interface FeedQuery {
  callbackType?: string;
  status?: string;
  requestId?: string;
  id?: string;
  timestamp: Array<{ operator: TimestampOperator; value: number }>;
  after?: FeedPosition;
  limit: number;
}

/** Reads the events table in feed order: `timestamp`, then `sequence` (insertion order). */
export class WebhookEventRepository {
  constructor(private readonly db: Db) {}

  /** The position of one of the owner's events, by id; undefined when the owner has no such event. */
  async position(owner: Owner, id: string): Promise<FeedPosition | undefined> {
    const row = await this.db
      .selectFrom('events')
      .select(['timestamp', 'sequence'])
      .where('id', '=', id)
      .where(whereOwned(owner))
      .executeTakeFirst();
    return row && { timestamp: Number(row.timestamp), sequence: Number(row.sequence) };
  }

  async list(owner: Owner, q: FeedQuery): Promise<FeedEventRow[]> {
    let query = this.db
      .selectFrom('events')
      .select([
        'id',
        'sequence',
        'timestamp',
        'payload',
        'delivery_status',
        'delivery_status_code',
        'delivery_attempts',
        'last_attempt_at',
        'next_attempt_at',
      ])
      .where(whereOwned(owner));
    if (q.callbackType !== undefined) query = query.where('callback_type', '=', q.callbackType);
    if (q.status !== undefined) query = query.where('status', '=', q.status);
    if (q.requestId !== undefined) query = query.where('request_id', '=', q.requestId);
    if (q.id !== undefined) query = query.where('id', '=', q.id);
    for (const condition of q.timestamp) query = query.where('timestamp', condition.operator, condition.value);
    const after = q.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('timestamp', '>', after.timestamp),
          eb.and([eb('timestamp', '=', after.timestamp), eb('sequence', '>', after.sequence)]),
        ]),
      );
    }
    const rows = await query.orderBy('timestamp').orderBy('sequence').limit(q.limit).execute();
    return rows.map((row) => ({ ...row, sequence: Number(row.sequence), timestamp: Number(row.timestamp) }));
  }

  /** The owner's events newest first (the dashboard), before a position when given. */
  async newestFirst(owner: Owner, before: FeedPosition | undefined, limit: number): Promise<FeedEventRow[]> {
    let query = this.db
      .selectFrom('events')
      .select(['id', 'sequence', 'timestamp', 'payload', 'delivery_status', 'delivery_status_code', 'delivery_attempts', 'last_attempt_at', 'next_attempt_at'])
      .where(whereOwned(owner));
    if (before) {
      query = query.where((eb) =>
        eb.or([eb('timestamp', '<', before.timestamp), eb.and([eb('timestamp', '=', before.timestamp), eb('sequence', '<', before.sequence)])]),
      );
    }
    const rows = await query.orderBy('timestamp', 'desc').orderBy('sequence', 'desc').limit(limit).execute();
    return rows.map((row) => ({ ...row, sequence: Number(row.sequence), timestamp: Number(row.timestamp) }));
  }
}
