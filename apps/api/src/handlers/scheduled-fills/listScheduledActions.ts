import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /scheduled-actions: List scheduled actions. Scaffolded by `pnpm generate`; replace the body. */
export const listScheduledActions: Handlers['listScheduledActions'] = async () => {
  throw notImplemented('listScheduledActions');
};
