import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { executeInserts, rowByKey } from '../db/transactor.js';
import type { ActionStatus, ScheduledActionsTable } from './scheduled-action-tables.js';

export type ScheduledActionRow = ScheduledActionsTable;

/** SQL of scheduled actions. Every change of a pending action is conditional on it still being pending. */
export class ScheduledActionRepository {
  constructor(private readonly db: Db) {}

  async insert(row: ScheduledActionRow, trx: Db): Promise<void> {
    await executeInserts(trx, [trx.insertInto('scheduled_actions').values(row)]);
  }

  async findById(id: string, trx: Db = this.db): Promise<ScheduledActionRow | undefined> {
    return rowByKey(trx, 'scheduled_actions', 'id', id);
  }

  /** The `FILL_REQUEST` action of a held fill request (its latest, should there be several). */
  async findForFillRequest(fillRequestToken: string, trx: Db = this.db): Promise<ScheduledActionRow | undefined> {
    return trx
      .selectFrom('scheduled_actions')
      .selectAll()
      .where('fill_request_token', '=', fillRequestToken)
      .where('action_type', '=', 'FILL_REQUEST')
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
  }

  /** The pending action of a subscription (its next cycle), if any. */
  async pendingOfAutoRefill(autoRefillId: number, trx: Db = this.db): Promise<ScheduledActionRow | undefined> {
    return trx
      .selectFrom('scheduled_actions')
      .selectAll()
      .where('auto_refill_id', '=', autoRefillId)
      .where('status', '=', 'PENDING')
      .orderBy('cycle', 'desc')
      .executeTakeFirst();
  }

  /**
   * Ends a pending action (`COMPLETE` or `CANCELLED`); false when it was no longer pending.
   * Performing an action starts with this, in the unit of work that performs it: of two
   * processes that claimed one action (a lease that expired mid-work), the second finds it
   * done and performs nothing.
   */
  async finish(id: string, status: Exclude<ActionStatus, 'PENDING'>, change: { at: string; reason?: string | null; fillRequestToken?: string }, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('scheduled_actions')
      .set({
        status,
        updated_at: change.at,
        locked_until: null,
        ...(change.reason !== undefined ? { reason: change.reason } : {}),
        ...(change.fillRequestToken !== undefined ? { fill_request_token: change.fillRequestToken } : {}),
      })
      .where('id', '=', id)
      .where('status', '=', 'PENDING')
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** Moves a pending action to `submitOn` (and its payload, when given), releasing its lease; false when it is not pending. */
  async reschedule(id: string, submitOn: string, at: string, trx: Db = this.db, payload?: string | null): Promise<boolean> {
    const result = await trx
      .updateTable('scheduled_actions')
      .set({ submit_on: submitOn, updated_at: at, locked_until: null, ...(payload !== undefined ? { payload } : {}) })
      .where('id', '=', id)
      .where('status', '=', 'PENDING')
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** Names the fill request a completed action submitted. */
  async setFillRequest(id: string, fillRequestToken: string, trx: Db): Promise<void> {
    await trx.updateTable('scheduled_actions').set({ fill_request_token: fillRequestToken }).where('id', '=', id).execute();
  }

  /** Releases the lease of an action the scheduler could not perform now (it is taken again when due). */
  async release(id: string, trx: Db = this.db): Promise<void> {
    await trx.updateTable('scheduled_actions').set({ locked_until: null }).where('id', '=', id).where('status', '=', 'PENDING').execute();
  }

  /** One page of the owner's actions in creation order (after the cursor), and how many there are. */
  async page(owner: Owner, after: { created_at: string; id: string } | undefined, limit: number): Promise<ScheduledActionRow[]> {
    let query = this.db.selectFrom('scheduled_actions').selectAll().where(whereOwned(owner));
    if (after) {
      query = query.where((eb) => eb.or([eb('created_at', '>', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)])]));
    }
    return query.orderBy('created_at').orderBy('id').limit(limit).execute();
  }

  async count(owner: Owner): Promise<number> {
    const row = await this.db.selectFrom('scheduled_actions').select((eb) => eb.fn.countAll<number | string>().as('n')).where(whereOwned(owner)).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
