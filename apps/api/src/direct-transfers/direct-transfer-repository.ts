import type { Db } from '../db/database.js';
import type { DirectTransfersTable } from '../transfers/transfer-tables.js';

export type DirectTransferRow = DirectTransfersTable;

export class DirectTransferRepository {
  constructor(private readonly db: Db) {}

  async insert(row: DirectTransferRow, trx: Db = this.db): Promise<void> {
    await trx.insertInto('direct_transfers').values(row).execute();
  }

  /** The direct transfer with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string): Promise<DirectTransferRow | undefined> {
    return this.db.selectFrom('direct_transfers').selectAll().where('token', '=', token).executeTakeFirst();
  }
}
