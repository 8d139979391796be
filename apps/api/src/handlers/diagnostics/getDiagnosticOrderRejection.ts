import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const getDiagnosticOrderRejection: Handlers['getDiagnosticOrderRejection'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.rejection(ownerOf(ctx), path.order_id) };
};
