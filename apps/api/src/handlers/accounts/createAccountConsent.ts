import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /accounts/{accountId}/consents: Register a consent. Scaffolded by `pnpm generate`; replace the body. */
export const createAccountConsent: Handlers['createAccountConsent'] = async () => {
  throw notImplemented('createAccountConsent');
};
