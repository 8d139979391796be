import { ownerOf } from '../../http/owner-of.js';
import { presentFillRequestListItem } from '../../fill-requests/fill-request-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const listFillRequests: Handlers['listFillRequests'] = async ({ query }, ctx) => {
  const page = await ctx.services.fillRequests.list(ownerOf(ctx), query);
  return { status: 200, body: { results: page.results.map(presentFillRequestListItem), next_page_token: page.next_page_token } };
};
