import { ENVIRONMENTS, type Environment } from '../../auth/principal.js';
import { invalidApiKey } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** `x-tenant-id` names the tenant; `x-environment` (validated against the spec) its environment, production unless said. */
export const createAccount: Handlers['createAccount'] = async ({ body, headers }, ctx) => {
  const principal = ctx.principal;
  if (principal?.kind !== 'tenant') throw invalidApiKey();
  const environment: Environment = ENVIRONMENTS.find((e) => e === headers['x-environment']) ?? 'production';
  const created = await ctx.services.accounts.create({ customerId: principal.customerId, environment }, body, ctx.requestId);
  return { status: 201, body: created };
};
