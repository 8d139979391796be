import { invalidApiKey } from '../errors.js';
import type { RequestContext } from '../http/operation-types.js';

export type Environment = 'sandbox' | 'production';
export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];

/** Who is calling: the customer and the environment its API key selects. */
export interface Principal {
  customerId: string;
  environment: Environment;
}

/** The caller of a secured operation (the route layer has already authenticated it). */
export function principalOf(ctx: RequestContext): Principal {
  if (!ctx.principal) throw invalidApiKey();
  return ctx.principal;
}
