export type Environment = 'sandbox' | 'production';
export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];

/**
 * Whose records a caller works on: one customer's, in one environment. Every owned record
 * carries both, and a caller sees only the records of its owner.
 */
export interface Owner {
  customerId: string;
  environment: Environment;
}

/** A caller authenticated by an API key (scheme `ApiKey`): the key selects the customer and the environment. */
export interface ApiKeyCaller extends Owner {
  kind: 'api-key';
  /** The key's id in the audit trail: the first 16 hex digits of its SHA-256 (never the key). */
  keyId: string;
}

/** A machine client with a bearer token (schemes `BearerJwt`, `OAuth2ClientCredentials`): its tenant's records in one environment, and the scopes it was granted. */
export interface BearerCaller extends Owner {
  kind: 'bearer';
  clientId: string;
  scopes: readonly string[];
}

/** An anonymous caller routed to its tenant (scheme `TenantId`): a customer, but no environment and no scopes. */
export interface TenantCaller {
  kind: 'tenant';
  customerId: string;
}

/** Who is calling, as the operation's security scheme established it. */
export type Principal = ApiKeyCaller | BearerCaller | TenantCaller;
