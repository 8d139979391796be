import { presentConsent } from '../../accounts/account-presenter.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const createAccountConsent: Handlers['createAccountConsent'] = async ({ path, body }, ctx) => {
  const { consent, created } = await ctx.services.accounts.consent(ownerOf(ctx), path.accountId, body.type, ctx.requestId);
  return { status: created ? 201 : 200, body: presentConsent(consent) };
};
