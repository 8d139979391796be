import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /scheduled-fill-requests: Reschedule a fill request. Scaffolded by `pnpm generate`; replace the body. */
export const rescheduleFillRequest: Handlers['rescheduleFillRequest'] = async () => {
  throw notImplemented('rescheduleFillRequest');
};
