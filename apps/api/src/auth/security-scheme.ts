import type { FastifyRequest } from 'fastify';
import type { HttpError } from '../errors.js';
import type { Principal } from './principal.js';

/**
 * How the service checks one security scheme of the spec (`components.securitySchemes`).
 * The registry (security-schemes.ts) holds one per scheme name, and http/security.ts runs
 * an operation's schemes in the order its `security` lists them.
 */
export interface SecurityScheme {
  /**
   * The caller the request's credentials of this scheme establish. Answers null when the
   * request carries no credentials of this scheme (so another scheme of the operation may
   * take it); throws this scheme's own 401 HttpError when it carries credentials of this
   * scheme that are invalid. Scopes are checked by the caller, not here.
   */
  authenticate(request: FastifyRequest): Promise<Principal | null>;
  /** The 401 answered when no scheme of the operation found credentials in the request. */
  missing(): HttpError;
  /**
   * This scheme's challenge in a 401's `WWW-Authenticate` (`ApiKey realm="pharmacy"`), so a
   * caller refused by an operation that takes several schemes learns each; none for a
   * scheme that is not HTTP authentication (`x-tenant-id`).
   */
  readonly challenge?: string;
}
