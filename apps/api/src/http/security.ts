import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { SecurityScheme } from '../auth/security-scheme.js';
import type { SecuritySchemes } from '../auth/security-schemes.js';
import { HttpError, insufficientScope, unsupportedSecurityScheme } from '../errors.js';
import { NO_RATE_LIMITS, type RateLimits } from './rate-limits.js';
import type { SecurityRequirement } from './route-definition.js';

type SecurityHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** One entry of an operation's `security`: a single scheme and the scopes it needs. */
interface Alternative {
  scheme: string;
  scopes: readonly string[];
}

/** The operation's alternatives; an entry naming several schemes (all required at once) is refused. */
function alternatives(requirements: readonly SecurityRequirement[], operationId: string): Alternative[] {
  return requirements.map((requirement) => {
    const names = Object.keys(requirement);
    if (names.length !== 1) {
      const what = names.length === 0 ? 'an empty security requirement ({}, optional authentication)' : `a security requirement naming several schemes at once (${names.join(' AND ')})`;
      throw new Error(`Operation ${operationId}: ${what} is not supported; list each scheme as its own entry of \`security\``);
    }
    return { scheme: names[0]!, scopes: requirement[names[0]!]! };
  });
}

/** The first scope of `scopes` the principal does not hold; only bearer tokens carry scopes. */
function missingScope(principal: Principal, scopes: readonly string[]): string | undefined {
  const held = principal.kind === 'bearer' ? principal.scopes : [];
  return scopes.find((scope) => !held.includes(scope));
}

/**
 * A 401 that names every HTTP scheme the operation accepts in `WWW-Authenticate` (RFC 9110
 * §11.6.1), in the spec's order: the refusing scheme's own challenge (with its
 * `error="invalid_token"`) where it has one, each other scheme's plain one. The body stays
 * the refusing scheme's.
 */
function withChallenges(error: HttpError, schemes: readonly SecurityScheme[]): HttpError {
  const own = error.headers['www-authenticate'];
  const ownScheme = own?.split(' ')[0]?.toLowerCase();
  const challenges = new Set<string>();
  for (const { challenge } of schemes) {
    if (!challenge) continue;
    challenges.add(own && challenge.split(' ')[0]!.toLowerCase() === ownScheme ? own : challenge);
  }
  if (own) challenges.add(own);
  const value = [...challenges].join(', ');
  return value && value !== own ? new HttpError(error.statusCode, error.body, { ...error.headers, 'www-authenticate': value }) : error;
}

/**
 * The onRequest hook of an operation (run before the body is read) from its security
 * requirements and the registry of schemes. The entries are alternatives, tried in the
 * spec's order: the first registered scheme that finds credentials in the request decides,
 * with its principal or its 401, and the principal must then hold the entry's scopes (403
 * otherwise). When no scheme finds credentials, the first registered scheme's `missing()`
 * 401 answers. When none of the operation's schemes is registered, every request answers
 * 501, so an operation is never served unauthenticated by mistake. Public operations
 * (`security: []`) get no hook. Throws, when the routes are registered, for an entry this
 * service cannot honour (several schemes at once). Every 401 counts as a failed
 * authentication of the client's address, and an authenticated request toward its
 * caller's rate limit (`limits`).
 */
export function securityHook(
  requirements: readonly SecurityRequirement[],
  schemes: SecuritySchemes,
  operationId: string,
  limits: RateLimits = NO_RATE_LIMITS,
): SecurityHook | undefined {
  if (requirements.length === 0) return undefined;
  const all = alternatives(requirements, operationId);
  // A scheme listed in several entries (other scopes) authenticates once; any of its entries may then authorize.
  const registered = new Map<string, { scheme: SecurityScheme; scopeSets: (readonly string[])[] }>();
  for (const { scheme, scopes } of all) {
    const implementation = schemes[scheme];
    if (!implementation) continue;
    const entry = registered.get(scheme) ?? { scheme: implementation, scopeSets: [] };
    entry.scopeSets.push(scopes);
    registered.set(scheme, entry);
  }
  const tried = [...registered.values()];
  const challengers = [...new Set(tried.map(({ scheme }) => scheme))];
  if (tried.length === 0) {
    const unsupported = all[0]!.scheme;
    return async () => {
      throw unsupportedSecurityScheme(unsupported);
    };
  }
  const authenticate = async (request: FastifyRequest) => {
    for (const { scheme, scopeSets } of tried) {
      const principal = await scheme.authenticate(request);
      if (principal) return { principal, scopeSets };
    }
    throw tried[0]!.scheme.missing();
  };
  return async (request, reply) => {
    let found: Awaited<ReturnType<typeof authenticate>>;
    try {
      found = await authenticate(request);
    } catch (error) {
      if (!(error instanceof HttpError && error.statusCode === 401)) throw error;
      await limits.authenticationFailed(request, reply);
      throw withChallenges(error, challengers);
    }
    const { principal, scopeSets } = found;
    // Counted before its scopes are checked: a caller's refused requests count toward its limit too.
    request.principal = principal;
    await limits.authenticated(request, reply);
    if (!scopeSets.some((scopes) => missingScope(principal, scopes) === undefined)) {
      request.principal = null;
      throw insufficientScope(missingScope(principal, scopeSets[0]!)!);
    }
  };
}
