import type { Db } from '../db/database.js';
import type { JobTable } from '../db/job-claims.js';

/** Deliveries wait in the events table (the outbox): due at `next_attempt_at` while pending or retrying. */
export const DELIVERIES: JobTable<'events'> = {
  table: 'events',
  dueAt: 'next_attempt_at',
  state: { column: 'delivery_status', values: ['pending', 'retrying'] },
};

export interface DeliveryOutcome {
  delivery_status: 'delivered' | 'retrying' | 'failed' | 'pending';
  delivery_status_code: number | null;
  delivery_attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

/** SQL of webhook delivery over the events table. */
export class WebhookDeliveryRepository {
  /** Records an attempt's outcome and releases the claim (only while this claim holds it). */
  async finish(id: string, claim: string, outcome: DeliveryOutcome, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('events')
      .set({ ...outcome, locked_until: null })
      .where('id', '=', id)
      .where('locked_until', '=', claim)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
