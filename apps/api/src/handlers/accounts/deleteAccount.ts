import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** DELETE /accounts/{accountId}: Delete an account. Scaffolded by `pnpm generate`; replace the body. */
export const deleteAccount: Handlers['deleteAccount'] = async () => {
  throw notImplemented('deleteAccount');
};
