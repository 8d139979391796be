import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const listDiagnosticTests: Handlers['listDiagnosticTests'] = async (_input, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.tests(ownerOf(ctx).environment) };
};
