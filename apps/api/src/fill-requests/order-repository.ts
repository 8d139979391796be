import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { executeInserts, rowByKey } from '../db/transactor.js';
import type { OrdersTable } from './fill-request-tables.js';

export type OrderRow = OrdersTable;

/** SQL of orders, the records dispensed fill requests produce. */
export class OrderRepository {
  constructor(private readonly db: Db) {}

  async insert(row: OrderRow, trx: Db): Promise<void> {
    await executeInserts(trx, [trx.insertInto('orders').values(row)]);
  }

  async find(owner: Owner, token: string): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('token', '=', token).where(whereOwned(owner)).executeTakeFirst();
  }

  /** The order with this token in any customer's records (staff and the sandbox act on tokens). */
  async findByToken(token: string, trx: Db): Promise<OrderRow | undefined> {
    return rowByKey(trx, 'orders', 'token', token);
  }

  /** Records shipment progress unless the order already reached a final status (answers false then). */
  async updateShipment(token: string, changes: Partial<OrderRow>, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('orders')
      .set(changes)
      .where('token', '=', token)
      .where('status', 'in', ['pending_shipment', 'shipped'])
      .executeTakeFirst();
    return updatedOneRow(result);
  }
}
