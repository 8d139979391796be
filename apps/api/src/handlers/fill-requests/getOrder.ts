import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentOrder } from '../../fill-requests/order-presenter.js';

export const getOrder: Handlers['getOrder'] = async ({ path }, ctx) => {
  const order = await ctx.services.orders.get(ownerOf(ctx), path.token);
  return { status: 200, body: presentOrder(order) };
};
