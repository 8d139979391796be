import type { Kysely, Migration } from 'kysely';
import { newTenantId } from '../../tokens.js';

/**
 * The platform interfaces' identity: every customer is a tenant (`tenant_id`, given to
 * customers made before this migration too); its OAuth 2.0 machine clients, one
 * environment each, with the secret's hash and the scopes granted; and the tenants'
 * accounts with the consents they gave. A deleted account keeps its row (id, owner,
 * created_at, deleted_at) with every personal field emptied.
 */
export const platformIdentity: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('customers').addColumn('tenant_id', 'text').execute();
    const customers = await db.selectFrom('customers').select(['id', 'name']).execute();
    for (const customer of customers as { id: string; name: string }[]) {
      await db.updateTable('customers').set({ tenant_id: newTenantId(customer.name) }).where('id', '=', customer.id).execute();
    }
    await db.schema.createIndex('customers_tenant_id').unique().on('customers').column('tenant_id').execute();

    await db.schema
      .createTable('oauth_clients')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('oauth_clients_customer').on('oauth_clients').columns(['customer_id', 'environment']).execute();

    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('email', 'text')
      .addColumn('password_hash', 'text')
      .addColumn('contact_name_encrypted', 'text')
      .addColumn('contact_number_encrypted', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .execute();
    // One live account per email and owner; a deleted account's email is emptied, freeing it.
    await db.schema.createIndex('accounts_email').unique().on('accounts').columns(['customer_id', 'environment', 'email']).execute();

    await db.schema
      .createTable('account_consents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('account_consents_type').unique().on('account_consents').columns(['account_id', 'type']).execute();
  },
};
