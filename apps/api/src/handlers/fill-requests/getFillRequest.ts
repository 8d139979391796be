import { principalOf } from '../../auth/principal.js';
import { presentFillRequest } from '../../fill-requests/fill-request-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const getFillRequest: Handlers['getFillRequest'] = async ({ path }, ctx) => {
  const fillRequest = await ctx.services.fillRequests.get(principalOf(ctx), path.url_token);
  return { status: 202, body: presentFillRequest(fillRequest) };
};
