import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/insurance/{insurance_token}: Get an insurance record. Scaffolded by `pnpm generate`; replace the body. */
export const getInsurance: Handlers['getInsurance'] = async () => {
  throw notImplemented('getInsurance');
};
