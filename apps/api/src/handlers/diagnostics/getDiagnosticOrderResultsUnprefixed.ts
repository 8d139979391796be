import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

/** The seed's path of `getDiagnosticOrderResults`. */
export const getDiagnosticOrderResultsUnprefixed: Handlers['getDiagnosticOrderResultsUnprefixed'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.resultsV0(ownerOf(ctx), path.orderId) };
};
