import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /public/accounts: Create an account. Scaffolded by `pnpm generate`; replace the body. */
export const createAccount: Handlers['createAccount'] = async () => {
  throw notImplemented('createAccount');
};
