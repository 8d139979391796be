import { updatedOneRow, type Db } from '../db/database.js';
import type { IdempotencyKeysTable } from './idempotency-tables.js';

export type IdempotencyKeyRow = IdempotencyKeysTable;

/** The answer stored for a key. */
export interface StoredAnswer {
  status: number;
  body: string;
  contentType: string | null;
}

/** SQL of idempotency keys. */
export class IdempotencyRepository {
  constructor(private readonly db: Db) {}

  /** Inserts the key in flight unless the caller already has it; answers whether it was inserted. */
  async insert(row: IdempotencyKeyRow, trx: Db): Promise<boolean> {
    const result = await trx
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  find(scope: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    return this.db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
  }

  /**
   * Takes over a key whose row no longer holds (an expired answer, or the lease of a
   * request that died): only if it is still as `seen` was, so of two takers one wins.
   */
  async takeOver(seen: IdempotencyKeyRow, row: IdempotencyKeyRow, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('idempotency_keys')
      .set(row)
      .where('scope', '=', seen.scope)
      .where('key', '=', seen.key)
      .where('state', '=', seen.state)
      .where('created_at', '=', seen.created_at)
      .where((eb) => (seen.locked_until === null ? eb('locked_until', 'is', null) : eb('locked_until', '=', seen.locked_until)))
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** Stores the answer of the request holding the lease, in its transaction; false when the lease was lost. */
  async complete(trx: Db, scope: string, key: string, lease: string, answer: StoredAnswer): Promise<boolean> {
    const result = await trx
      .updateTable('idempotency_keys')
      .set({ state: 'completed', locked_until: null, response_status: answer.status, response_body: answer.body, response_type: answer.contentType })
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('state', '=', 'in_flight')
      .where('locked_until', '=', lease)
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** Forgets a key in flight whose request failed (only while this lease holds it). */
  async release(scope: string, key: string, lease: string, trx: Db): Promise<void> {
    await trx
      .deleteFrom('idempotency_keys')
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('state', '=', 'in_flight')
      .where('locked_until', '=', lease)
      .execute();
  }

  /** Deletes the keys expired before `now`; answers how many. */
  async deleteExpired(now: string, trx: Db): Promise<number> {
    const result = await trx.deleteFrom('idempotency_keys').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
