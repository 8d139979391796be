import type { Services } from '../services.js';
import { ApiKeyScheme } from './schemes/api-key.js';
import { BearerJwtScheme } from './schemes/bearer-jwt.js';
import { TenantIdScheme } from './schemes/tenant-id.js';
import type { SecurityScheme } from './security-scheme.js';

/** The schemes the service can check, by their name in the spec's `components.securitySchemes`. */
export type SecuritySchemes = Readonly<Record<string, SecurityScheme>>;

/**
 * The registry of security schemes, one file each under auth/schemes/. An operation whose
 * schemes are all missing here answers 501 (http/security.ts), so it is never served
 * unauthenticated. `BearerJwt` and `OAuth2ClientCredentials` name the same bearer token
 * (the second with the scopes an operation needs), so one scheme checks both.
 */
export function securitySchemes(services: Pick<Services, 'apiKeys' | 'accessTokens' | 'tenants'>): SecuritySchemes {
  const bearer = new BearerJwtScheme(services.accessTokens);
  return {
    ApiKey: new ApiKeyScheme(services.apiKeys),
    BearerJwt: bearer,
    OAuth2ClientCredentials: bearer,
    TenantId: new TenantIdScheme(services.tenants, services.accessTokens),
  };
}
