import { ownerOf } from '../../http/owner-of.js';
import { presentFillRequestReceipt } from '../../fill-requests/fill-request-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const createFillRequest: Handlers['createFillRequest'] = async ({ body }, ctx) => {
  const fillRequest = await ctx.services.fillRequests.create(ownerOf(ctx), body, ctx.requestId);
  return { status: 201, body: presentFillRequestReceipt(fillRequest) };
};
