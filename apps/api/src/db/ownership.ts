import { sql, type Expression, type SqlBool } from 'kysely';
import type { Environment, Owner } from '../auth/principal.js';
import type { HttpError } from '../errors.js';

/** The columns of every record a customer owns, in one of its environments. */
export interface Owned {
  customer_id: string;
  environment: Environment;
}

/** The owner columns of a new record. */
export function ownerColumns(owner: Owner): Owned {
  return { customer_id: owner.customerId, environment: owner.environment };
}

/** The owner of a stored record. */
export function ownerOfRow(row: Owned): Owner {
  return { customerId: row.customer_id, environment: row.environment };
}

/**
 * The condition that keeps a query to one owner's records: `.where(whereOwned(owner))`.
 * `table` qualifies the columns in a join.
 */
export function whereOwned(owner: Owner, table?: string): Expression<SqlBool> {
  const column = (name: string) => sql.ref(table ? `${table}.${name}` : name);
  return sql<SqlBool>`${column('customer_id')} = ${owner.customerId} and ${column('environment')} = ${owner.environment}`;
}

/** How a read answers a record the owner may not see. */
interface Refusals {
  /** No such record here (also the owner's own record of the other environment). */
  notFound: () => HttpError;
  /** Another customer's record, where the operation documents a refusal of its own; otherwise not found. */
  otherCustomer?: () => HttpError;
}

/** Whether the record is the owner's: the owner's customer, in the owner's environment. */
export function isOwnedBy(row: Owned, owner: Owner): boolean {
  return row.customer_id === owner.customerId && row.environment === owner.environment;
}

/** The record, when the owner may see it; otherwise the operation's refusal. */
export function visibleTo<Row extends Owned>(row: Row | undefined, owner: Owner, refusals: Refusals): Row {
  if (!row) throw refusals.notFound();
  if (row.customer_id !== owner.customerId) throw (refusals.otherCustomer ?? refusals.notFound)();
  if (row.environment !== owner.environment) throw refusals.notFound();
  return row;
}
