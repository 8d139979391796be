import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';
import { presentScheduledActionList } from '../../scheduled-fills/scheduled-action-presenter.js';

export const listScheduledActions: Handlers['listScheduledActions'] = async ({ query }, ctx) => {
  return { status: 200, body: presentScheduledActionList(await ctx.services.scheduledActions.list(ownerOf(ctx), query)) };
};
