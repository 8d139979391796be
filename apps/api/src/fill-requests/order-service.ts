import type { Owner } from '../auth/principal.js';
import { notFound } from '../errors.js';
import type { OrderRepository, OrderRow } from './order-repository.js';

const ORDER_NOT_FOUND = 'Order not found.';

/** Orders, read by token (fill-lifecycle.ts creates them when a fill request is dispensed, and ships them). */
export class OrderService {
  constructor(private readonly orders: OrderRepository) {}

  /** Another customer's order, or one of the other environment, does not exist here. */
  async get(owner: Owner, token: string): Promise<OrderRow> {
    const row = await this.orders.find(owner, token);
    if (!row) throw notFound(ORDER_NOT_FOUND);
    return row;
  }
}
