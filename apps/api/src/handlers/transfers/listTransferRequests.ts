import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentTransferListItem } from '../../transfers/transfer-presenter.js';

export const listTransferRequests: Handlers['listTransferRequests'] = async ({ query }, ctx) => {
  const transfers = await ctx.services.transfers.list(ownerOf(ctx), query.page ?? 0);
  return { status: 200, body: transfers.map(presentTransferListItem) };
};
