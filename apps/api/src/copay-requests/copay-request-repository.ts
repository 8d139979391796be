import type { Compilable } from 'kysely';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { insertRows } from '../db/transactor.js';
import type { CopayRequestsTable } from './copay-request-tables.js';

export type CopayRequestRow = CopayRequestsTable;

export class CopayRequestRepository {
  constructor(private readonly db: Db) {}

  async insertMany(rows: CopayRequestRow[], trx: Db): Promise<void> {
    if (rows.length) await trx.insertInto('copay_requests').values(rows).execute();
  }

  /** The insert of these rows (none when there are none), for `executeInserts`. */
  inserts(rows: CopayRequestRow[], trx: Db): Compilable[] {
    return rows.length ? [insertRows(trx, 'copay_requests', rows)] : [];
  }

  async find(owner: Owner, token: string): Promise<CopayRequestRow | undefined> {
    return this.db.selectFrom('copay_requests').selectAll().where('token', '=', token).where(whereOwned(owner)).executeTakeFirst();
  }

  /** The ids of the copay requests a fill request opened, in the order of its medications. */
  async idsForFillRequest(fillRequestToken: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('copay_requests')
      .select('token')
      .where('fill_request_token', '=', fillRequestToken)
      .orderBy('position')
      .execute();
    return rows.map((r) => r.token);
  }
}
