import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const getDiagnosticOrderResults: Handlers['getDiagnosticOrderResults'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.resultsV0(ownerOf(ctx), path.order_id) };
};
