import type { Owner } from '../auth/principal.js';
import { invalidApiKey } from '../errors.js';
import type { RequestContext } from './operation-types.js';

/** The owner whose records the caller of a secured operation works on (the security hook has authenticated it). */
export function ownerOf(ctx: RequestContext): Owner {
  const principal = ctx.principal;
  if (!principal || principal.kind === 'tenant') throw invalidApiKey();
  return principal;
}
