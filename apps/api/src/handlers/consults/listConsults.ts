import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /consults/v0: List consults. Scaffolded by `pnpm generate`; replace the body. */
export const listConsults: Handlers['listConsults'] = async () => {
  throw notImplemented('listConsults');
};
