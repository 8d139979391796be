import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/external_locations/{id}: Get an external location. Scaffolded by `pnpm generate`; replace the body. */
export const getExternalLocation: Handlers['getExternalLocation'] = async () => {
  throw notImplemented('getExternalLocation');
};
