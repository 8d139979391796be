import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const registerDiagnosticOrder: Handlers['registerDiagnosticOrder'] = async ({ body }, ctx) => {
  return { status: 201, body: await ctx.services.diagnosticOrders.register(ownerOf(ctx), body, ctx.requestId) };
};
