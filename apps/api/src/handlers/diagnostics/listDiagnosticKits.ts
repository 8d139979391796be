import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const listDiagnosticKits: Handlers['listDiagnosticKits'] = async (_input, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.kits(ownerOf(ctx).environment) };
};
