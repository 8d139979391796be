import type { FastifyRequest } from 'fastify';
import type { AccessTokens } from '../../access-tokens/access-tokens.js';
import { notFound, platformUnauthorized, REALM, type HttpError } from '../../errors.js';
import type { BearerCaller } from '../principal.js';
import type { SecurityScheme } from '../security-scheme.js';

/**
 * The token of `Authorization: Bearer <token>` (the scheme word in any case): undefined when
 * the header is absent or names another scheme, '' when the token is missing or malformed.
 */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  const credentials = /^\s*(\S+)(.*)$/s.exec(request.headers.authorization ?? '');
  if (!credentials || credentials[1]!.toLowerCase() !== 'bearer') return undefined;
  return /^\s+([A-Za-z0-9._~+/-]+=*)\s*$/.exec(credentials[2]!)?.[1] ?? '';
}

/**
 * The `BearerJwt` and `OAuth2ClientCredentials` schemes: an access token from
 * `POST /oauth/token`, verified by the access-tokens area (signature, issuer, audience,
 * expiry, a live client of the token's tenant and environment). A request without a bearer
 * token carries none of these credentials; a refused token answers the platform's 401. A
 * valid token together with `x-tenant-id` matches no route (seed 5.2.3): 404.
 */
export class BearerJwtScheme implements SecurityScheme {
  readonly challenge = `Bearer realm="${REALM}"`;

  constructor(private readonly tokens: Pick<AccessTokens, 'authenticate'>) {}

  async authenticate(request: FastifyRequest): Promise<BearerCaller | null> {
    const token = bearerTokenOf(request);
    if (token === undefined) return null;
    const caller = token ? await this.tokens.authenticate(token) : undefined;
    if (!caller) throw platformUnauthorized('invalid_token');
    if (request.headers['x-tenant-id'] !== undefined) throw notFound();
    return caller;
  }

  missing(): HttpError {
    return platformUnauthorized('bearer');
  }
}
