import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const listDiagnosticOrders: Handlers['listDiagnosticOrders'] = async ({ query }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.list(ownerOf(ctx), query) };
};
