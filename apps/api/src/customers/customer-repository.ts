import type { Db } from '../db/database.js';
import type { ApiKeysTable, CustomersTable } from './customer-tables.js';

export class CustomerRepository {
  constructor(private readonly db: Db) {}

  async insertWithKeys(customer: CustomersTable, keys: ApiKeysTable[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('customers').values(customer).execute();
      await trx.insertInto('api_keys').values(keys).execute();
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
}
