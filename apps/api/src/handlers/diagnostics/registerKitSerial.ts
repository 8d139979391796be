import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** PUT /v0/orders/{order_id}/kit_serial: Register a kit for an order. Scaffolded by `pnpm generate`; replace the body. */
export const registerKitSerial: Handlers['registerKitSerial'] = async () => {
  throw notImplemented('registerKitSerial');
};
