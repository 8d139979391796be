import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v1/same_day_delivery: Create a same-day delivery order. Scaffolded by `pnpm generate`; replace the body. */
export const createSameDayDelivery: Handlers['createSameDayDelivery'] = async () => {
  throw notImplemented('createSameDayDelivery');
};
