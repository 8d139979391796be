import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const registerKitSerial: Handlers['registerKitSerial'] = async ({ path, body }, ctx) => {
  return { status: 200, body: await ctx.services.diagnosticOrders.registerKitSerial(ownerOf(ctx), path.order_id, body.kit_serial, ctx.requestId) };
};
