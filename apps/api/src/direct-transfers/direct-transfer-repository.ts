import type { Compilable } from 'kysely';
import { updatedOneRow, type Db } from '../db/database.js';
import { insertRows, rowByKey } from '../db/transactor.js';
import type { DirectTransferStatus, DirectTransfersTable } from './direct-transfer-tables.js';

export type DirectTransferRow = DirectTransfersTable;

/** SQL of direct transfers. */
export class DirectTransferRepository {
  constructor(private readonly db: Db) {}

  /** The insert of a new direct transfer, for `executeInserts`. */
  insertOf(row: DirectTransferRow, trx: Db): Compilable {
    return insertRows(trx, 'direct_transfers', [row]);
  }

  /** The direct transfer with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string, trx: Db = this.db): Promise<DirectTransferRow | undefined> {
    return rowByKey(trx, 'direct_transfers', 'token', token);
  }

  /** Moves a pending direct transfer on; false when it is no longer pending. */
  async finish(token: string, status: DirectTransferStatus, changes: Partial<DirectTransferRow>, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('direct_transfers')
      .set({ ...changes, status })
      .where('token', '=', token)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return updatedOneRow(result);
  }
}
