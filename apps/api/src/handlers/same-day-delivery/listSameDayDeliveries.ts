import { ownerOf } from '../../http/owner-of.js';
import { presentSameDayDelivery } from '../../same-day-delivery/same-day-delivery-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const listSameDayDeliveries: Handlers['listSameDayDeliveries'] = async ({ query }, ctx) => {
  const page = await ctx.services.sameDayDeliveries.list(ownerOf(ctx), query);
  return { status: 200, body: { results: page.results.map(presentSameDayDelivery), next_page_token: page.next_page_token } };
};
