import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { rowByKey } from '../db/transactor.js';
import type { PrescribersTable } from './prescriber-tables.js';

export type PrescriberRow = PrescribersTable;

export class PrescriberRepository {
  constructor(private readonly db: Db) {}

  /**
   * Inserts the prescriber, or, when the customer already has one with this NPI in this
   * environment, replaces its name, address and phone; answers the token that stands.
   */
  async upsertByNpi(owner: Owner, row: PrescriberRow, trx: Db): Promise<string> {
    await trx
      .insertInto('prescribers')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['customer_id', 'environment', 'npi']).doUpdateSet((eb) => ({
          first_name: eb.ref('excluded.first_name'),
          last_name: eb.ref('excluded.last_name'),
          address_name: eb.ref('excluded.address_name'),
          address_company: eb.ref('excluded.address_company'),
          address_street1: eb.ref('excluded.address_street1'),
          address_street2: eb.ref('excluded.address_street2'),
          address_city: eb.ref('excluded.address_city'),
          address_state: eb.ref('excluded.address_state'),
          address_zip: eb.ref('excluded.address_zip'),
          address_country: eb.ref('excluded.address_country'),
          address_phone: eb.ref('excluded.address_phone'),
          address_email: eb.ref('excluded.address_email'),
          phone: eb.ref('excluded.phone'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
    const stands = await trx
      .selectFrom('prescribers')
      .select('token')
      .where(whereOwned(owner))
      .where('npi', '=', row.npi)
      .executeTakeFirstOrThrow();
    return stands.token;
  }

  /** The prescriber with this token in any customer's records (ownership is the service's concern). */
  async findByToken(token: string): Promise<PrescriberRow | undefined> {
    return rowByKey(this.db, 'prescribers', 'token', token);
  }
}
