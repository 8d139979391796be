import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { executeInserts } from '../db/transactor.js';
import type { WebhookDeliveryAttemptsTable } from './delivery-attempt-tables.js';

export type DeliveryAttemptRow = WebhookDeliveryAttemptsTable;

/** SQL of `webhook_delivery_attempts`. */
export class DeliveryAttemptRepository {
  constructor(private readonly db: Db) {}

  /** Records attempts in one statement (a batch of outcomes is written together). */
  async insert(rows: DeliveryAttemptRow[], trx: Db): Promise<void> {
    if (rows.length) await executeInserts(trx, [trx.insertInto('webhook_delivery_attempts').values(rows)]);
  }

  /** The owner's attempts of these events, newest first. */
  async ofEvents(owner: Owner, eventIds: readonly string[]): Promise<DeliveryAttemptRow[]> {
    if (!eventIds.length) return [];
    const rows = await this.db
      .selectFrom('webhook_delivery_attempts')
      .selectAll()
      .where('event_id', 'in', eventIds)
      .where(whereOwned(owner))
      .orderBy('attempted_at', 'desc')
      .orderBy('attempt', 'desc')
      .execute();
    return rows.map((row) => ({ ...row, attempt: Number(row.attempt), duration_ms: Number(row.duration_ms) }));
  }

  /** Deletes attempts made before `before`; answers how many. */
  async deleteBefore(before: string): Promise<number> {
    const result = await this.db.deleteFrom('webhook_delivery_attempts').where('attempted_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
