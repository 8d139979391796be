import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import type { Compilable } from 'kysely';
import { whereOwned } from '../db/ownership.js';
import { executeInserts, insertRows, rowByKey } from '../db/transactor.js';
import { recordToken } from '../tokens.js';
import type {
  TransferMedicationsTable,
  TransferMessagesTable,
  TransferRequestsTable,
  TransferStatus,
} from './transfer-tables.js';

export type TransferRow = TransferRequestsTable;
export type TransferMedicationRow = TransferMedicationsTable;
export type TransferMessageRow = TransferMessagesTable;

/** A medication of a transfer request, pending until the pharmacy answers it. */
export function newTransferMedication(transferToken: string, position: number, medicationName: string, now: string): TransferMedicationRow {
  return {
    token: recordToken(),
    transfer_token: transferToken,
    position,
    medication_name: medicationName,
    status: 'pending',
    rejection_reason: null,
    rejection_reason_other: null,
    prescription_token: null,
    source_last_filled_date: null,
    source_refills_filled: null,
    created_at: now,
    updated_at: now,
  };
}

/** SQL of transfer requests, their medications and their messages. */
export class TransferRepository {
  constructor(private readonly db: Db) {}

  /** The inserts of a new transfer request and its medications, for `executeInserts`. */
  inserts(row: TransferRow, medications: TransferMedicationRow[], trx: Db): Compilable[] {
    return [insertRows(trx, 'transfer_requests', [row]), ...(medications.length ? [insertRows(trx, 'transfer_medications', medications)] : [])];
  }

  /** The transfer request with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string, trx: Db = this.db): Promise<TransferRow | undefined> {
    return rowByKey(trx, 'transfer_requests', 'token', token);
  }

  /** One page of the owner's transfer requests, earliest created first. */
  async listPage(owner: Owner, offset: number, limit: number): Promise<TransferRow[]> {
    return this.db
      .selectFrom('transfer_requests')
      .selectAll()
      .where(whereOwned(owner))
      .orderBy('created_at')
      .orderBy('token')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The medications of these transfer requests, in request order then position. */
  async medicationsOf(transferTokens: string[], trx: Db = this.db): Promise<TransferMedicationRow[]> {
    if (!transferTokens.length) return [];
    return trx
      .selectFrom('transfer_medications')
      .selectAll()
      .where('transfer_token', 'in', transferTokens)
      .orderBy('transfer_token')
      .orderBy('position')
      .execute();
  }

  async messagesOf(transferToken: string): Promise<TransferMessageRow[]> {
    return this.db
      .selectFrom('transfer_messages')
      .selectAll()
      .where('transfer_token', '=', transferToken)
      .orderBy('position')
      .execute();
  }

  async insertMedication(row: TransferMedicationRow, trx: Db): Promise<void> {
    await executeInserts(trx, [trx.insertInto('transfer_medications').values(row)]);
  }

  async updateMedication(token: string, changes: Partial<TransferMedicationRow>, trx: Db): Promise<void> {
    await trx.updateTable('transfer_medications').set(changes).where('token', '=', token).execute();
  }

  /** Moves a pending transfer request on; false when it is no longer pending (a concurrent action won). */
  async finish(token: string, status: TransferStatus, changes: Partial<TransferRow>, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('transfer_requests')
      .set({ ...changes, status })
      .where('token', '=', token)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  async touch(token: string, at: string, trx: Db): Promise<void> {
    await trx.updateTable('transfer_requests').set({ updated_at: at }).where('token', '=', token).execute();
  }

  /** Appends a line to what happened on a transfer request. */
  async addMessage(transferToken: string, message: string, at: string, trx: Db): Promise<void> {
    const last = await trx
      .selectFrom('transfer_messages')
      .select((eb) => eb.fn.max('position').as('position'))
      .where('transfer_token', '=', transferToken)
      .executeTakeFirst();
    const position = last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1;
    await executeInserts(trx, [trx.insertInto('transfer_messages').values({ transfer_token: transferToken, position, message, created_at: at })]);
  }
}
