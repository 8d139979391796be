import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import type { Compilable } from 'kysely';
import { whereOwned } from '../db/ownership.js';
import { insertRows, rowByKey } from '../db/transactor.js';
import type { SameDayDeliveriesTable } from './same-day-delivery-tables.js';

export type SameDayDeliveryRow = SameDayDeliveriesTable;

interface SameDayDeliveryListQuery {
  status?: string;
  /** The last order of the previous page (newest first). */
  before?: { created_at: string; token: string };
  limit: number;
}

/** What a status move may change besides the status. */
export type SameDayDeliveryChanges = Partial<Pick<SameDayDeliveryRow, 'status_reason' | 'courier' | 'tracking_url' | 'eta' | 'delivered_at'>>;

/** SQL of same-day delivery orders. */
export class SameDayDeliveryRepository {
  constructor(private readonly db: Db) {}

  /** The insert of a new order, for `executeInserts`. */
  insertOf(row: SameDayDeliveryRow, trx: Db): Compilable {
    return insertRows(trx, 'same_day_deliveries', [row]);
  }

  /** The order with this token in any customer's records (ownership is the caller's concern). */
  async findByToken(token: string, trx: Db = this.db): Promise<SameDayDeliveryRow | undefined> {
    return rowByKey(trx, 'same_day_deliveries', 'token', token);
  }

  /** The owner's orders, newest first (ties by token, descending), optionally of one status. */
  async list(owner: Owner, q: SameDayDeliveryListQuery): Promise<SameDayDeliveryRow[]> {
    let query = this.db.selectFrom('same_day_deliveries').selectAll().where(whereOwned(owner));
    if (q.status !== undefined) query = query.where('status', '=', q.status);
    const before = q.before;
    if (before) {
      query = query.where((eb) =>
        eb.or([eb('created_at', '<', before.created_at), eb.and([eb('created_at', '=', before.created_at), eb('token', '<', before.token)])]),
      );
    }
    return query.orderBy('created_at', 'desc').orderBy('token', 'desc').limit(q.limit).execute();
  }

  /** Moves an order to `status` from one of `from`, with `changes`; false when it is in none of them any more. */
  async move(token: string, from: readonly string[], status: string, changes: SameDayDeliveryChanges, at: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('same_day_deliveries')
      .set({ ...changes, status, updated_at: at })
      .where('token', '=', token)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    return updatedOneRow(result);
  }
}
