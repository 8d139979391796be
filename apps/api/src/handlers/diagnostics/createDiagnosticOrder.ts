import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const createDiagnosticOrder: Handlers['createDiagnosticOrder'] = async ({ body }, ctx) => {
  return { status: 201, body: await ctx.services.diagnosticOrders.create(ownerOf(ctx), body, ctx.requestId) };
};
