import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const getDiagnosticOrderResultsV2: Handlers['getDiagnosticOrderResultsV2'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.results(ownerOf(ctx), path.order_id) };
};
