import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { PrescriptionsTable } from '../db/tables.js';
import type { FillRequestsTable, OrdersTable } from '../fill-requests/fill-request-tables.js';
import type {
  DirectTransferStatus,
  DirectTransfersTable,
  TransferMedicationsTable,
  TransferRequestsTable,
  TransferStatus,
} from '../transfers/transfer-tables.js';

/** The reads and writes of the pharmacy's operations; every method runs in the caller's unit of work. */
export class OperationsRepository {
  transfer(trx: Db, token: string): Promise<TransferRequestsTable | undefined> {
    return trx.selectFrom('transfer_requests').selectAll().where('token', '=', token).executeTakeFirst();
  }

  transferMedications(trx: Db, transferToken: string): Promise<TransferMedicationsTable[]> {
    return trx.selectFrom('transfer_medications').selectAll().where('transfer_token', '=', transferToken).orderBy('position').execute();
  }

  async insertTransferMedication(trx: Db, row: TransferMedicationsTable): Promise<void> {
    await trx.insertInto('transfer_medications').values(row).execute();
  }

  async updateTransferMedication(trx: Db, token: string, changes: Partial<TransferMedicationsTable>): Promise<void> {
    await trx.updateTable('transfer_medications').set(changes).where('token', '=', token).execute();
  }

  /** Moves a pending transfer request on; false when it is no longer pending (a concurrent action won). */
  async finishTransfer(trx: Db, token: string, status: TransferStatus, changes: Partial<TransferRequestsTable>): Promise<boolean> {
    const result = await trx
      .updateTable('transfer_requests')
      .set({ ...changes, status })
      .where('token', '=', token)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async touchTransfer(trx: Db, token: string, at: string): Promise<void> {
    await trx.updateTable('transfer_requests').set({ updated_at: at }).where('token', '=', token).execute();
  }

  /** Appends a line to what happened on a transfer request. */
  async addTransferMessage(trx: Db, transferToken: string, message: string, at: string): Promise<void> {
    const last = await trx
      .selectFrom('transfer_messages')
      .select((eb) => eb.fn.max('position').as('position'))
      .where('transfer_token', '=', transferToken)
      .executeTakeFirst();
    const position = last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1;
    await trx.insertInto('transfer_messages').values({ transfer_token: transferToken, position, message, created_at: at }).execute();
  }

  directTransfer(trx: Db, token: string): Promise<DirectTransfersTable | undefined> {
    return trx.selectFrom('direct_transfers').selectAll().where('token', '=', token).executeTakeFirst();
  }

  /** Moves a pending direct transfer on; false when it is no longer pending. */
  async finishDirectTransfer(
    trx: Db,
    token: string,
    status: DirectTransferStatus,
    changes: Partial<DirectTransfersTable>,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('direct_transfers')
      .set({ ...changes, status })
      .where('token', '=', token)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertPrescription(trx: Db, row: PrescriptionsTable): Promise<void> {
    await trx.insertInto('prescriptions').values(row).execute();
  }

  /**
   * Other patients of the owner who look like the same person (same names, trimmed and in
   * any case, and date of birth) but whose other identity data differ: the duplicates
   * mismatched patient data caused.
   */
  async duplicatePatients(trx: Db, owner: Owner, patientToken: string): Promise<string[]> {
    const patient = await trx.selectFrom('patients').selectAll().where('token', '=', patientToken).executeTakeFirst();
    if (!patient) return [];
    const rows = await trx
      .selectFrom('patients')
      .select('token')
      .where('customer_id', '=', owner.customerId)
      .where('environment', '=', owner.environment)
      .where('last_name_norm', '=', patient.last_name_norm)
      .where('first_name_norm', '=', patient.first_name_norm)
      .where('dob', '=', patient.dob)
      .where('token', '!=', patient.token)
      .orderBy('created_at')
      .orderBy('token')
      .limit(100)
      .execute();
    return rows.map((r) => r.token);
  }

  fillRequest(trx: Db, token: string): Promise<FillRequestsTable | undefined> {
    return trx.selectFrom('fill_requests').selectAll().where('token', '=', token).executeTakeFirst();
  }

  /** Sets a pending (or triaged) fill request's status; false when it was already processed. */
  async setFillRequestStatus(trx: Db, token: string, status: string, at: string): Promise<boolean> {
    const result = await trx
      .updateTable('fill_requests')
      .set({ status, updated_at: at })
      .where('token', '=', token)
      .where('status', 'in', ['pending', 'triage'])
      .where('order_token', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  order(trx: Db, token: string): Promise<OrdersTable | undefined> {
    return trx.selectFrom('orders').selectAll().where('token', '=', token).executeTakeFirst();
  }

  /** Records shipment progress unless the order already reached a final status (answers false then). */
  async updateOrderShipment(trx: Db, token: string, changes: Partial<OrdersTable>): Promise<boolean> {
    const result = await trx
      .updateTable('orders')
      .set(changes)
      .where('token', '=', token)
      .where('status', 'in', ['pending_shipment', 'shipped'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
