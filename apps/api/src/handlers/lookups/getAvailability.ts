import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/availability: Check availability by NDC. Scaffolded by `pnpm generate`; replace the body. */
export const getAvailability: Handlers['getAvailability'] = async () => {
  throw notImplemented('getAvailability');
};
