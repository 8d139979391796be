import { ownerOf } from '../../http/owner-of.js';
import { presentFillRequest } from '../../fill-requests/fill-request-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const getFillRequest: Handlers['getFillRequest'] = async ({ path }, ctx) => {
  const fillRequest = await ctx.services.fillRequests.get(ownerOf(ctx), path.url_token);
  return { status: 202, body: presentFillRequest(fillRequest) };
};
