import { ownerOf } from '../../http/owner-of.js';
import { presentCopayRequest } from '../../copay-requests/copay-request-presenter.js';
import type { Handlers } from '../../generated/handlers.js';

export const getCopayRequest: Handlers['getCopayRequest'] = async ({ path }, ctx) => {
  const copayRequest = await ctx.services.copayRequests.get(ownerOf(ctx), path.request_id);
  return { status: 202, body: presentCopayRequest(copayRequest) };
};
