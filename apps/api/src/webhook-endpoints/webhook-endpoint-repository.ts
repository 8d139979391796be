import { sql, type SqlBool } from 'kysely';
import type { SqlCondition } from '../events/event-outbox.js';
import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import type { WebhookEndpointsTable } from './webhook-endpoint-tables.js';

export type WebhookEndpointRow = WebhookEndpointsTable;

/** An endpoint's failure streak after some attempts were recorded. */
export type EndpointHealth = Pick<WebhookEndpointRow, 'status' | 'consecutive_failures' | 'failing_since'>;

/** The columns of an enabled endpoint with no failure streak (a new one, or one enabled again). */
export const ENABLED = { status: 'enabled', disabled_at: null, disabled_reason: null, consecutive_failures: 0, failing_since: null } as const;

/** SQL of the webhook_endpoints table (primary key customer_id + environment). */
export class WebhookEndpointRepository {
  constructor(private readonly db: Db) {}

  find(owner: Owner, trx: Db = this.db): Promise<WebhookEndpointRow | undefined> {
    return trx
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where(whereOwned(owner))
      .executeTakeFirst();
  }

  /**
   * The condition, for a statement that records an event of the owner, that its endpoint is
   * set and enabled (evaluated by that statement, as it sees the table).
   */
  acceptingCondition(owner: Owner): SqlCondition {
    return {
      name: 'webhookEndpoints.accepting',
      expression: sql<SqlBool>`exists (select 1 from "webhook_endpoints" where "customer_id" = ${owner.customerId} and "environment" = ${owner.environment} and "status" = 'enabled')`,
      parameters: [owner.customerId, owner.environment],
    };
  }

  async insert(row: WebhookEndpointRow, trx: Db = this.db): Promise<void> {
    await trx.insertInto('webhook_endpoints').values(row).execute();
  }

  async update(
    owner: Owner,
    changes: Partial<Omit<WebhookEndpointRow, 'customer_id' | 'environment' | 'created_at'>> & { updated_at: string },
    trx: Db = this.db,
  ): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set(changes)
      .where(whereOwned(owner))
      .execute();
  }

  /**
   * Adds attempts to the endpoint's failure streak, in one statement (processes sharing the
   * database may record attempts of one endpoint at once): after a success the streak is
   * the `failures` that followed it, starting at `firstFailureAt`; without one, the streak
   * grows by `failures`. Answers the streak, or undefined when nothing changed (no endpoint,
   * or a success on an endpoint with no streak).
   */
  async recordAttempts(
    owner: Owner,
    attempts: { succeeded: boolean; failures: number; firstFailureAt: string | null },
    trx: Db,
  ): Promise<EndpointHealth | undefined> {
    let update = trx.updateTable('webhook_endpoints').where(whereOwned(owner));
    if (attempts.succeeded) {
      update = update.set({ consecutive_failures: attempts.failures, failing_since: attempts.firstFailureAt });
      // A success on an endpoint with no streak changes nothing: no write.
      if (attempts.failures === 0) update = update.where('consecutive_failures', '>', 0);
    } else {
      update = update.set((eb) => ({
        consecutive_failures: eb('consecutive_failures', '+', attempts.failures),
        failing_since: eb.fn.coalesce('failing_since', eb.val(attempts.firstFailureAt)),
      }));
    }
    return update.returning(['status', 'consecutive_failures', 'failing_since']).executeTakeFirst();
  }

  /** Disables an enabled endpoint; answers whether it did. */
  async disable(owner: Owner, at: string, reason: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_at: at, disabled_reason: reason })
      .where(whereOwned(owner))
      .where('status', '=', 'enabled')
      .executeTakeFirst();
    return updatedOneRow(result);
  }
}
