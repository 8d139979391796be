import type { Compilable } from 'kysely';
import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import { executeInserts, insertRows, rowByKey } from '../db/transactor.js';
import { isOwnedBy, whereOwned } from '../db/ownership.js';
import type { FillRequestMedicationsTable, FillRequestsTable } from './fill-request-tables.js';

export type FillRequestRow = FillRequestsTable;
export type FillRequestMedicationRow = FillRequestMedicationsTable;

export type CreatedAtOperator = '<' | '>' | '<=' | '>=' | '=';

interface FillRequestListQuery {
  createdAt?: { op: CreatedAtOperator; value: string };
  metadata?: string;
  after?: { created_at: string; token: string };
  limit: number;
}

/** The statuses a fill request can still be dispensed, held or refused from. */
const OPEN = ['pending', 'triage'];

/** SQL of fill requests and the fills they recorded. */
export class FillRequestRepository {
  constructor(private readonly db: Db) {}

  async insert(row: FillRequestRow, medications: FillRequestMedicationRow[], trx: Db): Promise<void> {
    await executeInserts(trx, this.inserts(row, medications, trx));
  }

  /** The inserts of a request (when `row` is given) and its fills, for `executeInserts`. */
  inserts(row: FillRequestRow | undefined, medications: FillRequestMedicationRow[], trx: Db): Compilable[] {
    const inserts: Compilable[] = [];
    if (row) inserts.push(insertRows(trx, 'fill_requests', [row]));
    if (medications.length) inserts.push(insertRows(trx, 'fill_request_medications', medications));
    return inserts;
  }

  /**
   * Turns a held (`scheduled`) request into the submitted one; false when it is no longer
   * held. Its fills are the caller's to insert (`inserts`).
   */
  async submitHeld(row: FillRequestRow, trx: Db): Promise<boolean> {
    const { token, status, payload, patient_payment_type, metadata, shipping_method, replacement_order, check_in, updated_at } = row;
    const result = await trx
      .updateTable('fill_requests')
      .set({ status, payload, patient_payment_type, metadata, shipping_method, replacement_order, check_in, updated_at })
      .where('token', '=', token)
      .where('status', '=', 'scheduled')
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /**
   * Takes a held request's row for the unit of work (a conditional no-op update); false when
   * it is no longer held. A held request's row is always locked before its scheduled action,
   * as `POST /v1/cancel_request` does, so the two never deadlock.
   */
  async lockHeld(token: string, trx: Db): Promise<boolean> {
    const result = await trx.updateTable('fill_requests').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('token', '=', token).where('status', '=', 'scheduled').executeTakeFirst();
    return updatedOneRow(result);
  }

  /** Ends a held request (`canceled`, or `error` when it can no longer be submitted); false when it is no longer held. */
  async endHeld(token: string, status: 'canceled' | 'error', at: string, trx: Db): Promise<boolean> {
    const result = await trx.updateTable('fill_requests').set({ status, updated_at: at }).where('token', '=', token).where('status', '=', 'scheduled').executeTakeFirst();
    return updatedOneRow(result);
  }

  /** The fill request with this token in any customer's records (ownership is the caller's concern). */
  async findByToken(token: string, trx: Db = this.db): Promise<FillRequestRow | undefined> {
    return rowByKey(trx, 'fill_requests', 'token', token);
  }

  /**
   * The owner's latest fill request that filled (or holds) this prescription, found among its
   * patient's requests (`fill_requests_patient`, newest first; migration 025: no index of
   * fills by prescription). The prescription is the owner's, so its patient is, and so is
   * every request of that patient: the owner's columns are checked on the row found, not
   * put in the query, where SQLite would walk the owner's requests of every patient instead.
   */
  async latestForPrescription(owner: Owner, prescription: { token: string; patient_token: string }): Promise<FillRequestRow | undefined> {
    const row = await this.db
      .selectFrom('fill_requests')
      .selectAll('fill_requests')
      .where('fill_requests.patient_token', '=', prescription.patient_token)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('fill_request_medications')
            .select('fill_request_medications.position')
            .whereRef('fill_request_medications.fill_request_token', '=', 'fill_requests.token')
            .where('fill_request_medications.prescription_token', '=', prescription.token),
        ),
      )
      .orderBy('fill_requests.created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && isOwnedBy(row, owner) ? row : undefined;
  }

  async existsFor(owner: Owner, token: string): Promise<boolean> {
    const row = await this.db.selectFrom('fill_requests').select('token').where('token', '=', token).where(whereOwned(owner)).executeTakeFirst();
    return row !== undefined;
  }

  async list(owner: Owner, q: FillRequestListQuery): Promise<FillRequestRow[]> {
    let query = this.db.selectFrom('fill_requests').selectAll().where(whereOwned(owner));
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

  /** The fills a fill request recorded when it was submitted, in the order of its medications. */
  async fillsOf(fillRequestToken: string, trx: Db): Promise<FillRequestMedicationRow[]> {
    return trx
      .selectFrom('fill_request_medications')
      .selectAll()
      .where('fill_request_token', '=', fillRequestToken)
      .orderBy('position')
      .execute();
  }

  /** Holds (triage) or refuses (error) a request not yet processed; false when it already was. */
  async setStatus(token: string, status: 'triage' | 'error', at: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('fill_requests')
      .set({ status, updated_at: at })
      .where('token', '=', token)
      .where('status', 'in', OPEN)
      .where('order_token', 'is', null)
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** Marks a request filled by its order unless it was already processed (answers false then). */
  async markFilled(token: string, orderToken: string, at: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('fill_requests')
      .set({ status: 'filled', order_token: orderToken, updated_at: at })
      .where('token', '=', token)
      .where('status', 'in', OPEN)
      .where('order_token', 'is', null)
      .executeTakeFirst();
    return updatedOneRow(result);
  }
}
