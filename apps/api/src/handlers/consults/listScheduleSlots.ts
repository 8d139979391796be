import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v0/schedule: List open provider slots. Scaffolded by `pnpm generate`; replace the body. */
export const listScheduleSlots: Handlers['listScheduleSlots'] = async () => {
  throw notImplemented('listScheduleSlots');
};
