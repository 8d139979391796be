import type { SecretBox } from '../crypto/secret-box.js';
import { contextOf, type SealedColumns } from '../crypto/sealed-columns.js';
import type { AccountsTable } from './account-tables.js';

/**
 * The account fields stored sealed: the contact name and number, which nothing compares or
 * answers. The email stays in clear (lower-cased): it is compared, one account per address.
 */
export const accountSealedColumns: SealedColumns = { table: 'accounts', key: ['id'], columns: ['contact_name_encrypted', 'contact_number_encrypted'] };

/** The sealed columns of a new account: each field given sealed, bound to the account's id; null when not given. */
export function sealAccountContact(
  box: SecretBox,
  id: string,
  contact: { contactName?: string; contactNumber?: string },
): Pick<AccountsTable, 'contact_name_encrypted' | 'contact_number_encrypted'> {
  const seal = (value: string | undefined, column: string) => (value === undefined ? null : box.seal(value, contextOf(accountSealedColumns, column, { id })));
  return {
    contact_name_encrypted: seal(contact.contactName, 'contact_name_encrypted'),
    contact_number_encrypted: seal(contact.contactNumber, 'contact_number_encrypted'),
  };
}
