import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import type { AccountConsentsTable, AccountsTable } from './account-tables.js';

/** The accounts' SQL: every method takes the unit of work's transaction, or reads on its own. */
export class AccountRepository {
  constructor(private readonly db: Db) {}

  /**
   * Inserts the account with its consents; answers false, inserting nothing, when the owner
   * already has a live account with its email (the unique index decides, so two creates at
   * once cannot both succeed).
   */
  async insert(trx: Db, account: AccountsTable, consents: AccountConsentsTable[]): Promise<boolean> {
    const inserted = await trx
      .insertInto('accounts')
      .values(account)
      .onConflict((oc) => oc.columns(['customer_id', 'environment', 'email']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return false;
    if (consents.length) await trx.insertInto('account_consents').values(consents).execute();
    return true;
  }

  /** The owner's live account of this id (a deleted one is no account). */
  async findLive(owner: Owner, id: string, trx: Db = this.db): Promise<Pick<AccountsTable, 'id'> | undefined> {
    return trx.selectFrom('accounts').select('id').where(whereOwned(owner)).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  }

  /**
   * Records the consent unless the account gave one of its type already; answers the
   * consent stored (the one given first) and whether it is this one.
   */
  async recordConsent(trx: Db, consent: AccountConsentsTable): Promise<{ consent: AccountConsentsTable; created: boolean }> {
    const inserted = await trx
      .insertInto('account_consents')
      .values(consent)
      .onConflict((oc) => oc.columns(['account_id', 'type']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return { consent, created: true };
    const first = await trx
      .selectFrom('account_consents')
      .selectAll()
      .where('account_id', '=', consent.account_id)
      .where('type', '=', consent.type)
      .executeTakeFirstOrThrow();
    return { consent: first, created: false };
  }

  /** Empties the account's personal fields and deletes its consents; answers whether a live account was deleted. */
  async delete(trx: Db, owner: Owner, id: string, at: string): Promise<boolean> {
    const result = await trx
      .updateTable('accounts')
      .set({ email: null, password_hash: null, contact_name_encrypted: null, contact_number_encrypted: null, deleted_at: at })
      .where(whereOwned(owner))
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!updatedOneRow(result)) return false;
    await trx.deleteFrom('account_consents').where('account_id', '=', id).execute();
    return true;
  }
}
