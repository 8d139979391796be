import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { PrescriptionsTable } from '../db/tables.js';
import type { FillRequestMedicationsTable, FillRequestsTable } from './fill-request-tables.js';
import type { Fill } from './prescription-fill.js';

export type FillRequestRow = FillRequestsTable;
export type FillRequestMedicationRow = FillRequestMedicationsTable;

export type CreatedAtOperator = '<' | '>' | '<=' | '>=' | '=';

export interface FillRequestListQuery {
  createdAt?: { op: CreatedAtOperator; value: string };
  metadata?: string;
  after?: { created_at: string; token: string };
  limit: number;
}

export class FillRequestRepository {
  constructor(private readonly db: Db) {}

  async insert(row: FillRequestRow, medications: FillRequestMedicationRow[], trx: Db = this.db): Promise<void> {
    await trx.insertInto('fill_requests').values(row).execute();
    if (medications.length) await trx.insertInto('fill_request_medications').values(medications).execute();
  }

  /** The fill request with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string, trx: Db = this.db): Promise<FillRequestRow | undefined> {
    return trx.selectFrom('fill_requests').selectAll().where('token', '=', token).executeTakeFirst();
  }

  async existsFor(owner: Owner, token: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('fill_requests')
      .select('token')
      .where('token', '=', token)
      .where('customer_id', '=', owner.customerId)
      .where('environment', '=', owner.environment)
      .executeTakeFirst();
    return row !== undefined;
  }

  async list(owner: Owner, q: FillRequestListQuery): Promise<FillRequestRow[]> {
    let query = this.db
      .selectFrom('fill_requests')
      .selectAll()
      .where('customer_id', '=', owner.customerId)
      .where('environment', '=', owner.environment);
    if (q.metadata !== undefined) query = query.where('metadata', '=', q.metadata);
    if (q.createdAt) query = query.where('created_at', q.createdAt.op, q.createdAt.value);
    const after = q.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '>', after.created_at),
          eb.and([eb('created_at', '=', after.created_at), eb('token', '>', after.token)]),
        ]),
      );
    }
    return query.orderBy('created_at').orderBy('token').limit(q.limit).execute();
  }

  /** Prescriptions by token, in one query (visibility is the service's concern). */
  async prescriptions(tokens: string[], trx: Db = this.db): Promise<PrescriptionsTable[]> {
    if (!tokens.length) return [];
    return trx.selectFrom('prescriptions').selectAll().where('token', 'in', tokens).execute();
  }

  /**
   * Records a fill on a prescription only if it still holds what `seen` held (compare and
   * set): of two concurrent fills of the last refill only one matches, the other updates
   * nothing and answers false.
   */
  async applyFill(seen: PrescriptionsTable, fill: Fill, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('prescriptions')
      .set({
        refills_remaining: fill.refills_remaining,
        quantity_remaining: fill.quantity_remaining,
        date_filled_utc: fill.date_filled_utc,
        last_filled_date: fill.last_filled_date,
      })
      .where('token', '=', seen.token)
      .where('status', '=', 'active')
      .where('quantity_remaining', '=', seen.quantity_remaining)
      .where('refills_remaining', '=', seen.refills_remaining)
      .where((eb) =>
        seen.date_filled_utc === null ? eb('date_filled_utc', 'is', null) : eb('date_filled_utc', '=', seen.date_filled_utc),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
