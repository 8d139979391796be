import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { ENVIRONMENTS, type BearerCaller, type Environment } from '../auth/principal.js';
import type { OAuthConfig } from '../config.js';
import type { OAuthClient, OAuthClients } from '../customers/oauth-clients.js';
import type { SigningKeys } from '../crypto/signing-keys.js';
import { randomToken } from '../tokens.js';

/** The only algorithm tokens are signed and verified with (RFC 8725 §3.1: pinned, never `none`). */
const ALGORITHM = 'EdDSA';
/** The media type of a JWT access token (RFC 9068 §2.1), checked on verification. */
const TOKEN_TYPE = 'at+jwt';
/** How far the clocks of issuer and verifier may disagree on `exp`, `iat` and `nbf`. */
export const CLOCK_SKEW_SECONDS = 30;

/** The claims of an access token beyond the registered ones: who it routes to. */
interface AccessTokenClaims extends JWTPayload {
  client_id: string;
  tenant_id: string;
  environment: Environment;
  scope: string;
}

/** A verified token, cached until it expires. */
interface Verified {
  claims: AccessTokenClaims;
  /** When it stops verifying, in ms since the epoch (its `exp` plus the allowed skew). */
  until: number;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/**
 * Access tokens of the platform interfaces: JWTs (RFC 9068) signed with Ed25519, issued to a
 * client for its tenant and environment, and verified on every bearer request.
 *
 * Verifying a signature costs about as much as the rest of a request, so a token that
 * verified is kept (by its exact text, until it expires): a tampered token is another text
 * and is verified afresh. Whether its client is still live is asked on every request
 * (through the clients' own short cache), so a revocation refuses the tokens already issued.
 */
export class AccessTokens {
  private readonly verified = new LRUCache<string, Verified>({ max: 10_000 });

  constructor(
    private readonly keys: () => SigningKeys,
    private readonly clients: Pick<OAuthClients, 'find'>,
    private readonly config: Pick<OAuthConfig, 'issuerTemplate' | 'audience' | 'tokenTtlSeconds'>,
  ) {}

  get audience(): string {
    return this.config.audience;
  }

  /** The issuer of a tenant's tokens: its domain. */
  issuerOf(tenantId: string): string {
    return this.config.issuerTemplate.replace('{tenant}', tenantId);
  }

  /** The published key set (`/.well-known/jwks.json`). */
  jwks() {
    return this.keys().jwks();
  }

  /** A token for the client, carrying `scopes` (a subset of its own, checked by the exchange). */
  async issue(client: OAuthClient, scopes: readonly string[]): Promise<IssuedToken> {
    const key = this.keys().current;
    const scope = scopes.join(' ');
    const claims: AccessTokenClaims = { client_id: client.clientId, tenant_id: client.tenantId, environment: client.environment, scope };
    const access_token = await new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, kid: key.kid, typ: TOKEN_TYPE })
      .setIssuer(this.issuerOf(client.tenantId))
      .setAudience(this.config.audience)
      .setSubject(client.clientId)
      .setIssuedAt()
      .setExpirationTime(`${this.config.tokenTtlSeconds}s`)
      .setJti(randomToken(24))
      .sign(key.privateKey);
    return { access_token, token_type: 'Bearer', expires_in: this.config.tokenTtlSeconds, scope };
  }

  /**
   * The caller a bearer token establishes, or undefined when the token is not one of ours:
   * malformed, signed by a key not held or with another algorithm, of another type, audience
   * or issuer, expired, or of a client that is unknown, revoked or of another tenant or
   * environment than the token says.
   */
  async authenticate(token: string): Promise<BearerCaller | undefined> {
    const claims = await this.verify(token);
    if (!claims) return undefined;
    const client = await this.clients.find(claims.client_id);
    if (!client || client.tenantId !== claims.tenant_id || client.environment !== claims.environment) return undefined;
    return {
      kind: 'bearer',
      customerId: client.customerId,
      environment: client.environment,
      clientId: client.clientId,
      scopes: claims.scope ? claims.scope.split(' ') : [],
    };
  }

  private async verify(token: string): Promise<AccessTokenClaims | undefined> {
    const hit = this.verified.get(token);
    if (hit) {
      if (Date.now() < hit.until) return hit.claims;
      this.verified.delete(token);
      return undefined;
    }
    const claims = await this.verifySignedClaims(token);
    if (!claims) return undefined;
    const until = (claims.exp! + CLOCK_SKEW_SECONDS) * 1000;
    this.verified.set(token, { claims, until });
    return claims;
  }

  private async verifySignedClaims(token: string): Promise<AccessTokenClaims | undefined> {
    const keys = this.keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          const key = header.kid ? keys.find(header.kid) : undefined;
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key.publicKey;
        },
        {
          algorithms: [ALGORITHM],
          typ: TOKEN_TYPE,
          audience: this.config.audience,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ['iss', 'sub', 'exp', 'iat', 'jti', 'client_id', 'tenant_id', 'environment', 'scope'],
        },
      ));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
    const claims = payload as AccessTokenClaims;
    const wellFormed =
      typeof claims.tenant_id === 'string' &&
      typeof claims.scope === 'string' &&
      claims.sub === claims.client_id &&
      ENVIRONMENTS.includes(claims.environment) &&
      claims.iss === this.issuerOf(claims.tenant_id);
    return wellFormed ? claims : undefined;
  }
}
