import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import type { WebhookEndpointsTable } from './webhook-endpoint-tables.js';

export type WebhookEndpointRow = WebhookEndpointsTable;

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

  async insert(row: WebhookEndpointRow, trx: Db = this.db): Promise<void> {
    await trx.insertInto('webhook_endpoints').values(row).execute();
  }

  async update(
    owner: Owner,
    changes: Partial<Pick<WebhookEndpointRow, 'url' | 'secret_encrypted' | 'secret_hint'>> & { updated_at: string },
    trx: Db = this.db,
  ): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set(changes)
      .where(whereOwned(owner))
      .execute();
  }
}
