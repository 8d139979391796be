import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const getDiagnosticOrder: Handlers['getDiagnosticOrder'] = async ({ path }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.get(ownerOf(ctx), path.order_id) };
};
