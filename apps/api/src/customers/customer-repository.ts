import type { Db } from '../db/database.js';
import type { ApiKeysTable, CustomersTable, OAuthClientsTable } from './customer-tables.js';

/** A live client with its customer's tenant id. */
export type LiveClientRow = Pick<OAuthClientsTable, 'customer_id' | 'environment' | 'secret_hash' | 'scopes'> & { tenant_id: string };

export class CustomerRepository {
  constructor(private readonly db: Db) {}

  /** A customer with its credentials: API keys and OAuth clients, in one transaction. */
  async insertWithCredentials(customer: CustomersTable, keys: ApiKeysTable[], clients: OAuthClientsTable[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('customers').values(customer).execute();
      await trx.insertInto('api_keys').values(keys).execute();
      if (clients.length) await trx.insertInto('oauth_clients').values(clients).execute();
    });
  }

  async exists(customerId: string): Promise<boolean> {
    return (await this.db.selectFrom('customers').select('id').where('id', '=', customerId).executeTakeFirst()) !== undefined;
  }

  async findActiveKey(keyHash: string): Promise<Pick<ApiKeysTable, 'customer_id' | 'environment'> | undefined> {
    return this.db
      .selectFrom('api_keys')
      .select(['customer_id', 'environment'])
      .where('key_hash', '=', keyHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /** The customer whose tenant id this is. */
  async findByTenant(tenantId: string): Promise<Pick<CustomersTable, 'id' | 'tenant_id'> | undefined> {
    return this.db.selectFrom('customers').select(['id', 'tenant_id']).where('tenant_id', '=', tenantId).executeTakeFirst();
  }

  async tenantOf(customerId: string): Promise<string | undefined> {
    return (await this.db.selectFrom('customers').select('tenant_id').where('id', '=', customerId).executeTakeFirst())?.tenant_id;
  }

  async insertClient(client: OAuthClientsTable): Promise<void> {
    await this.db.insertInto('oauth_clients').values(client).execute();
  }

  async findLiveClient(clientId: string): Promise<LiveClientRow | undefined> {
    return this.db
      .selectFrom('oauth_clients')
      .innerJoin('customers', 'customers.id', 'oauth_clients.customer_id')
      .select(['oauth_clients.customer_id', 'oauth_clients.environment', 'oauth_clients.secret_hash', 'oauth_clients.scopes', 'customers.tenant_id'])
      .where('oauth_clients.client_id', '=', clientId)
      .where('oauth_clients.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /** Revokes a live client; answers when it was revoked (now, or earlier if it already was), undefined for an unknown client. */
  async revokeClient(clientId: string, at: string): Promise<string | undefined> {
    await this.db.updateTable('oauth_clients').set({ revoked_at: at }).where('client_id', '=', clientId).where('revoked_at', 'is', null).execute();
    return (await this.db.selectFrom('oauth_clients').select('revoked_at').where('client_id', '=', clientId).executeTakeFirst())?.revoked_at ?? undefined;
  }

  /** A customer's API keys as listings show them: by prefix, oldest first (the key itself is not stored). */
  async listKeys(customerId: string): Promise<Pick<ApiKeysTable, 'key_prefix' | 'environment' | 'created_at' | 'revoked_at'>[]> {
    return this.db
      .selectFrom('api_keys')
      .select(['key_prefix', 'environment', 'created_at', 'revoked_at'])
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('key_prefix')
      .execute();
  }

  async listClients(customerId: string) {
    return this.db
      .selectFrom('oauth_clients')
      .select(['client_id', 'environment', 'scopes', 'created_at', 'revoked_at'])
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('client_id')
      .execute();
  }
}
