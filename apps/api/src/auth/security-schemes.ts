import type { Services } from '../services.js';
import { ApiKeyScheme } from './schemes/api-key.js';
import type { SecurityScheme } from './security-scheme.js';

/** The schemes the service can check, by their name in the spec's `components.securitySchemes`. */
export type SecuritySchemes = Readonly<Record<string, SecurityScheme>>;

/**
 * The registry of security schemes, one file each under auth/schemes/. An operation whose
 * schemes are all missing here answers 501 (http/security.ts), so it is never served
 * unauthenticated. `BearerJwt`, `OAuth2ClientCredentials` and `TenantId` are still to come.
 */
export function securitySchemes(services: Pick<Services, 'apiKeys'>): SecuritySchemes {
  return {
    ApiKey: new ApiKeyScheme(services.apiKeys),
  };
}
