import type { Db } from '../db/database.js';
import type { PrescriptionsTable } from '../db/tables.js';
import type { Owner } from '../auth/principal.js';
import { randomToken } from '../tokens.js';
import type { TransferMedicationsTable, TransferMessagesTable, TransferRequestsTable } from './transfer-tables.js';

export type TransferRow = TransferRequestsTable;
export type TransferMedicationRow = TransferMedicationsTable;
export type TransferMessageRow = TransferMessagesTable;

/** A medication of a transfer request, pending until the pharmacy answers it. */
export function newTransferMedication(transferToken: string, position: number, medicationName: string, now: string): TransferMedicationRow {
  return {
    token: randomToken(),
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

export class TransferRepository {
  constructor(private readonly db: Db) {}

  async insert(row: TransferRow, medications: TransferMedicationRow[], trx: Db = this.db): Promise<void> {
    await trx.insertInto('transfer_requests').values(row).execute();
    if (medications.length) await trx.insertInto('transfer_medications').values(medications).execute();
  }

  /** The transfer request with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string): Promise<TransferRow | undefined> {
    return this.db.selectFrom('transfer_requests').selectAll().where('token', '=', token).executeTakeFirst();
  }

  /** One page of the owner's transfer requests, earliest created first. */
  async listPage(owner: Owner, offset: number, limit: number): Promise<TransferRow[]> {
    return this.db
      .selectFrom('transfer_requests')
      .selectAll()
      .where('customer_id', '=', owner.customerId)
      .where('environment', '=', owner.environment)
      .orderBy('created_at')
      .orderBy('token')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** The medications of these transfer requests, in request order then position. */
  async medicationsOf(transferTokens: string[]): Promise<TransferMedicationRow[]> {
    if (!transferTokens.length) return [];
    return this.db
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

  /** The prescriptions transferred medications became. */
  async prescriptions(tokens: string[]): Promise<PrescriptionsTable[]> {
    if (!tokens.length) return [];
    return this.db.selectFrom('prescriptions').selectAll().where('token', 'in', tokens).execute();
  }
}
