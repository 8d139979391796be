import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/specialty_pharmacies: List specialty pharmacies. Scaffolded by `pnpm generate`; replace the body. */
export const listSpecialtyPharmacies: Handlers['listSpecialtyPharmacies'] = async () => {
  throw notImplemented('listSpecialtyPharmacies');
};
