import { ownerOf } from '../../http/owner-of.js';
import { presentSameDayDelivery } from '../../same-day-delivery/same-day-delivery-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const getSameDayDelivery: Handlers['getSameDayDelivery'] = async ({ path }, ctx) => {
  const order = await ctx.services.sameDayDeliveries.get(ownerOf(ctx), path.id);
  return { status: 200, body: presentSameDayDelivery(order) };
};
