import type { Selectable } from 'kysely';
import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import type { JobTable } from '../db/job-claims.js';
import { whereOwned } from '../db/ownership.js';
import type { EventsTable } from '../events/event-tables.js';

/** Deliveries wait in the events table (the outbox): due at `next_attempt_at` while pending or retrying. */
export const DELIVERIES: JobTable<'events'> = {
  table: 'events',
  dueAt: 'next_attempt_at',
  state: { column: 'delivery_status', values: ['pending', 'retrying'] },
};

/** The columns that name an event's endpoint (one per customer and environment): deliveries are capped per endpoint. */
export const ENDPOINT_COLUMNS = ['customer_id', 'environment'] as const;

/** An event claimed for delivery: its row, with the claim (`locked_until`) that holds it. */
export type ClaimedEvent = Selectable<EventsTable> & { locked_until: string };

export interface DeliveryOutcome {
  delivery_status: 'delivered' | 'retrying' | 'failed' | 'pending';
  delivery_status_code: number | null;
  delivery_attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

/** An event scheduled for a fresh delivery at `next_attempt_at` (its last attempt stays recorded). */
function fresh(now: string) {
  return { delivery_status: 'pending', delivery_status_code: null, delivery_attempts: 0, next_attempt_at: now, locked_until: null } as const;
}

/** SQL of webhook delivery over the events table. */
export class WebhookDeliveryRepository {
  constructor(private readonly db: Db) {}

  /**
   * Schedules one of the owner's events for a fresh delivery unless a worker holds it now;
   * answers what became of it: `missing` when the owner has no such event.
   */
  async redeliver(owner: Owner, id: string, now: string, trx: Db): Promise<'scheduled' | 'claimed' | 'missing'> {
    const result = await trx
      .updateTable('events')
      .set(fresh(now))
      .where('id', '=', id)
      .where(whereOwned(owner))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .executeTakeFirst();
    if (updatedOneRow(result)) return 'scheduled';
    const row = await trx.selectFrom('events').select('id').where('id', '=', id).where(whereOwned(owner)).executeTakeFirst();
    return row ? 'claimed' : 'missing';
  }

  /** Schedules for a fresh delivery up to `limit` of the owner's failed events from `sinceSeconds` on, oldest first; answers how many. */
  async redeliverFailed(owner: Owner, sinceSeconds: number, limit: number, now: string, trx: Db): Promise<number> {
    const result = await trx
      .updateTable('events')
      .set(fresh(now))
      .where('id', 'in', this.failedSince(trx, owner, sinceSeconds).select('id').limit(limit))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Whether the owner has failed events from `sinceSeconds` on. */
  async hasFailed(owner: Owner, sinceSeconds: number): Promise<boolean> {
    return (await this.failedSince(this.db, owner, sinceSeconds).select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  /** The owner's failed events from `sinceSeconds` on (the envelope's `timestamp`), oldest first (the feed's index). */
  private failedSince(db: Db, owner: Owner, sinceSeconds: number) {
    return db
      .selectFrom('events')
      .where(whereOwned(owner))
      .where('timestamp', '>=', sinceSeconds)
      .where('delivery_status', '=', 'failed')
      .orderBy('timestamp')
      .orderBy('sequence');
  }

  /**
   * Records attempts' outcomes and releases their claims (each only while its claim holds
   * it); answers, for each, whether it was kept. Outcomes alike under one claim (the events
   * of one claim that had no endpoint, or were released unchanged) are one statement.
   */
  async finishAll(finished: readonly FinishedDelivery[], trx: Db): Promise<boolean[]> {
    const groups = new Map<string, FinishedDelivery[]>();
    for (const item of finished) {
      const key = JSON.stringify([item.claim, item.outcome.delivery_status, item.outcome.delivery_status_code, item.outcome.delivery_attempts, item.outcome.last_attempt_at, item.outcome.next_attempt_at]);
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
    const kept = new Set<string>();
    for (const group of groups.values()) {
      const { claim, outcome } = group[0]!;
      const rows = await trx
        .updateTable('events')
        .set({ ...outcome, locked_until: null })
        .where('id', 'in', group.map((item) => item.id))
        .where('locked_until', '=', claim)
        .returning('id')
        .execute();
      for (const row of rows) kept.add(row.id);
    }
    return finished.map((item) => kept.has(item.id));
  }
}

/** An event's delivery outcome, to be written while the claim `claim` still holds it. */
export interface FinishedDelivery {
  id: string;
  claim: string;
  outcome: DeliveryOutcome;
}
