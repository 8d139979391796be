import { PostgresAdapter } from 'kysely';
import type { Environment } from '../auth/principal.js';
import type { Db } from '../db/database.js';

export interface ClaimedEvent {
  id: string;
  customer_id: string;
  environment: Environment;
  payload: string;
  created_at: string;
  delivery_attempts: number;
  locked_until: string;
}

export interface DeliveryOutcome {
  delivery_status: 'delivered' | 'retrying' | 'failed' | 'pending';
  delivery_status_code: number | null;
  delivery_attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

/** SQL of webhook delivery over the events table (the outbox). */
export class WebhookDeliveryRepository {
  private readonly postgres: boolean;

  constructor(private readonly db: Db) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /**
   * Claims up to `limit` due events (pending or retrying, `next_attempt_at <= now`, not
   * locked or with an expired lock) by setting `locked_until`, in one statement. On
   * PostgreSQL the candidates are selected `FOR UPDATE SKIP LOCKED`, so processes sharing
   * the database claim disjoint events; the embedded database has one writer.
   */
  async claimDue(now: string, lockUntil: string, limit: number, trx: Db = this.db): Promise<ClaimedEvent[]> {
    let due = trx
      .selectFrom('events')
      .select('id')
      .where('next_attempt_at', '<=', now)
      .where('delivery_status', 'in', ['pending', 'retrying'])
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(limit);
    if (this.postgres) due = due.forUpdate().skipLocked();
    const rows = await trx
      .updateTable('events')
      .set({ locked_until: lockUntil })
      .where('id', 'in', due)
      // Re-checked by the update itself: another claim that won in between is not taken over.
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .returning(['id', 'customer_id', 'environment', 'payload', 'created_at', 'delivery_attempts', 'locked_until'])
      .execute();
    return rows as ClaimedEvent[];
  }

  /** Records an attempt's outcome and releases the claim (only while this claim holds it). */
  async finish(id: string, claim: string, outcome: DeliveryOutcome, trx: Db = this.db): Promise<boolean> {
    const result = await trx
      .updateTable('events')
      .set({ ...outcome, locked_until: null })
      .where('id', '=', id)
      .where('locked_until', '=', claim)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
