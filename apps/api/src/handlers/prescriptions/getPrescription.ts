import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/prescription/{token}: Get a prescription. Scaffolded by `pnpm generate`; replace the body. */
export const getPrescription: Handlers['getPrescription'] = async () => {
  throw notImplemented('getPrescription');
};
