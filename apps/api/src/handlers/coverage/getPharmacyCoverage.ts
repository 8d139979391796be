import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/pharmacy-coverage: Find the best pharmacy for a coverage. Scaffolded by `pnpm generate`; replace the body. */
export const getPharmacyCoverage: Handlers['getPharmacyCoverage'] = async () => {
  throw notImplemented('getPharmacyCoverage');
};
