import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/order/{token}: Get an order. Scaffolded by `pnpm generate`; replace the body. */
export const getOrder: Handlers['getOrder'] = async () => {
  throw notImplemented('getOrder');
};
