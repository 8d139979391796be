import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/same_day_delivery/{id}: Get a same-day delivery order. Scaffolded by `pnpm generate`; replace the body. */
export const getSameDayDelivery: Handlers['getSameDayDelivery'] = async () => {
  throw notImplemented('getSameDayDelivery');
};
