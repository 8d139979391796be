import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v1/prescriber/{prescriber_token}: Get a prescriber record. Scaffolded by `pnpm generate`; replace the body. */
export const getPrescriber: Handlers['getPrescriber'] = async () => {
  throw notImplemented('getPrescriber');
};
