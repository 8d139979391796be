import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const validateKitSerial: Handlers['validateKitSerial'] = async ({ path, query }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.validateKitSerial(ownerOf(ctx).environment, path.kit_id, query.test) };
};
