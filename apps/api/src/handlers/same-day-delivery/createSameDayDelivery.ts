import { ownerOf } from '../../http/owner-of.js';
import { presentSameDayDelivery } from '../../same-day-delivery/same-day-delivery-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const createSameDayDelivery: Handlers['createSameDayDelivery'] = async ({ body }, ctx) => {
  const order = await ctx.services.sameDayDeliveries.create(ownerOf(ctx), body, ctx.requestId);
  return { status: 201, body: presentSameDayDelivery(order) };
};
