import { createHash, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Environment, Owner } from '../auth/principal.js';
import { nowIso, randomToken } from '../tokens.js';
import type { CustomerRepository } from './customer-repository.js';
import type { OAuthClientsTable } from './customer-tables.js';

const SECRET_PREFIX: Record<Environment, string> = { sandbox: 'cs_sandbox_', production: 'cs_live_' };

/** A client as made: its secret is answered here only, never stored. */
export interface NewOAuthClient {
  client_id: string;
  client_secret: string;
  scopes: string[];
}

/** A live client, as the token exchange and bearer verification know it. */
export interface OAuthClient extends Owner {
  clientId: string;
  /** Its customer's tenant id. */
  tenantId: string;
  scopes: readonly string[];
}

/** Secrets carry ~280 random bits, so one fast hash is enough (as for API keys). */
function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A new client's row and its one-time answer. */
export function newOAuthClient(customerId: string, environment: Environment, scopes: readonly string[]): { row: OAuthClientsTable; created: NewOAuthClient } {
  const client_id = randomToken(32);
  const client_secret = SECRET_PREFIX[environment] + randomToken(48);
  return {
    row: {
      client_id,
      customer_id: customerId,
      environment,
      secret_hash: hashSecret(client_secret),
      scopes: scopes.join(' '),
      created_at: nowIso(),
      revoked_at: null,
    },
    created: { client_id, client_secret, scopes: [...scopes] },
  };
}

/**
 * A customer's OAuth 2.0 machine clients: made, revoked, and looked up to authenticate.
 * Live clients are cached briefly (`ttlMs`), so verifying a bearer token costs no query;
 * a revocation through this service drops its entry at once, one by another process (the
 * admin command) is seen within `ttlMs`, as for API keys.
 */
export class OAuthClients {
  private readonly cache: LRUCache<string, OAuthClient | false>;

  constructor(
    private readonly customers: CustomerRepository,
    /** Every scope a client may be granted (the spec's OAuth 2.0 scopes). */
    readonly allScopes: readonly string[],
    ttlMs = 30_000,
    maxEntries = 10_000,
  ) {
    this.cache = new LRUCache({ max: maxEntries, ttl: ttlMs });
  }

  /** Makes a client of the customer in one environment; `scopes` default to every scope. */
  async create(customerId: string, environment: Environment, scopes: readonly string[] = this.allScopes): Promise<NewOAuthClient> {
    const unknown = scopes.filter((scope) => !this.allScopes.includes(scope));
    if (unknown.length) throw new Error(`unknown scope ${unknown.join(', ')} (the scopes are: ${this.allScopes.join(' ')})`);
    if (!(await this.customers.exists(customerId))) throw new Error(`no customer ${customerId}`);
    const { row, created } = newOAuthClient(customerId, environment, [...new Set(scopes)]);
    await this.customers.insertClient(row);
    return created;
  }

  /** Revokes a client: its secret no longer exchanges, and tokens already issued to it no longer verify. */
  async revoke(clientId: string): Promise<{ client_id: string; revoked_at: string } | undefined> {
    const revokedAt = nowIso();
    const revoked = await this.customers.revokeClient(clientId, revokedAt);
    this.cache.delete(clientId);
    return revoked ? { client_id: clientId, revoked_at: revoked } : undefined;
  }

  /** The customer's clients (never their secrets), for operators. */
  list(customerId: string) {
    return this.customers.listClients(customerId);
  }

  /** The live client of this id (cached), or undefined when unknown or revoked. */
  async find(clientId: string): Promise<OAuthClient | undefined> {
    const hit = this.cache.get(clientId);
    if (hit !== undefined) return hit || undefined;
    return (await this.load(clientId))?.client;
  }

  /**
   * The live client whose secret this is, read afresh (an exchange never trusts the cache);
   * undefined for an unknown or revoked client or a wrong secret (compared in constant time).
   */
  async authenticate(clientId: string, secret: string): Promise<OAuthClient | undefined> {
    const loaded = await this.load(clientId);
    const given = Buffer.from(hashSecret(secret), 'hex');
    const stored = Buffer.from(loaded?.secretHash ?? '00'.repeat(32), 'hex');
    return timingSafeEqual(stored, given) && loaded ? loaded.client : undefined;
  }

  private async load(clientId: string): Promise<{ client: OAuthClient; secretHash: string } | undefined> {
    const row = await this.customers.findLiveClient(clientId);
    if (!row) {
      this.cache.set(clientId, false);
      return undefined;
    }
    const scopes = row.scopes ? row.scopes.split(' ') : [];
    const client: OAuthClient = { clientId, customerId: row.customer_id, environment: row.environment, tenantId: row.tenant_id, scopes };
    this.cache.set(clientId, client);
    return { client, secretHash: row.secret_hash };
  }
}
