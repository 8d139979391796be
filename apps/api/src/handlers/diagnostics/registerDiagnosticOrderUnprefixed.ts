import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

/** The seed's path of `registerDiagnosticOrder`. */
export const registerDiagnosticOrderUnprefixed: Handlers['registerDiagnosticOrderUnprefixed'] = async ({ body }, ctx) => {
  return { status: 201, body: await ctx.services.diagnosticOrders.register(ownerOf(ctx), body, ctx.requestId) };
};
