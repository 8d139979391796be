import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/copay_request/{request_id}: Get a copay request. Scaffolded by `pnpm generate`; replace the body. */
export const getCopayRequest: Handlers['getCopayRequest'] = async () => {
  throw notImplemented('getCopayRequest');
};
