import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { OrdersTable } from '../fill-requests/fill-request-tables.js';

export type OrderRow = OrdersTable;

/** A fill of a fill request with the prescription details an order shows. */
export interface DispensedFill {
  prescription_token: string;
  fill_number: number;
  quantity: number;
  days_supply: number;
  refills_remaining: number;
  quantity_remaining: number;
  medication_name: string;
  prescribed_written_name: string | null;
  prescribed_ndc: string | null;
  rx_number: string;
  number_of_refills_allowed: number;
}

export class OrderRepository {
  constructor(private readonly db: Db) {}

  async insert(row: OrderRow, trx: Db = this.db): Promise<void> {
    await trx.insertInto('orders').values(row).execute();
  }

  async find(owner: Owner, token: string): Promise<OrderRow | undefined> {
    return this.db
      .selectFrom('orders')
      .selectAll()
      .where('token', '=', token)
      .where('customer_id', '=', owner.customerId)
      .where('environment', '=', owner.environment)
      .executeTakeFirst();
  }

  /** The fills a fill request recorded, with their prescriptions, in the request's order (one query). */
  async fillsOf(fillRequestToken: string, trx: Db = this.db): Promise<DispensedFill[]> {
    return trx
      .selectFrom('fill_request_medications as f')
      .innerJoin('prescriptions as p', 'p.token', 'f.prescription_token')
      .select([
        'f.prescription_token',
        'f.fill_number',
        'f.quantity',
        'f.days_supply',
        'f.refills_remaining',
        'f.quantity_remaining',
        'p.medication_name',
        'p.prescribed_written_name',
        'p.prescribed_ndc',
        'p.rx_number',
        'p.number_of_refills_allowed',
      ])
      .where('f.fill_request_token', '=', fillRequestToken)
      .orderBy('f.position')
      .execute();
  }

  /** Marks a fill request processed unless it already was (answers false then). */
  async markFilled(fillRequestToken: string, orderToken: string, at: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('fill_requests')
      .set({ status: 'filled', order_token: orderToken, updated_at: at })
      .where('token', '=', fillRequestToken)
      .where('status', 'in', ['pending', 'triage'])
      .where('order_token', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
