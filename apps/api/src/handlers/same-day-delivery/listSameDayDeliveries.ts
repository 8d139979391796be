import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/same_day_delivery: List same-day delivery orders. Scaffolded by `pnpm generate`; replace the body. */
export const listSameDayDeliveries: Handlers['listSameDayDeliveries'] = async () => {
  throw notImplemented('listSameDayDeliveries');
};
