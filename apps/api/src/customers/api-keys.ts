import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ApiKeyCaller, Environment } from '../auth/principal.js';
import type { CustomerRepository } from './customer-repository.js';
import { randomToken } from '../tokens.js';

const KEY_PREFIX: Record<Environment, string> = { sandbox: 'sk_sandbox_', production: 'sk_live_' };

/** A new API key for an environment. The prefix is for humans and secret scanners only. */
export function generateApiKey(environment: Environment): string {
  return KEY_PREFIX[environment] + randomToken(32);
}

/** Keys carry ~190 random bits, so one fast hash is enough; a slow KDF would add nothing. One call (`hash`), no Hash object made: every request hashes its key. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** How the audit trail names a key: the first 16 hex digits of its hash (`printf %s "$KEY" | sha256sum | cut -c1-16`). */
export function apiKeyId(keyHash: string): string {
  return keyHash.slice(0, 16);
}

/** Resolves API keys to their callers, caching hits briefly so reads do not hit the database. */
export class ApiKeyAuthenticator {
  private readonly cache: LRUCache<string, ApiKeyCaller>;

  constructor(
    private readonly customers: CustomerRepository,
    ttlMs = 30_000,
    maxEntries = 10_000,
  ) {
    this.cache = new LRUCache({ max: maxEntries, ttl: ttlMs });
  }

  async authenticate(key: string): Promise<ApiKeyCaller | null> {
    const hash = hashApiKey(key);
    const hit = this.cache.get(hash);
    if (hit) return hit;
    const row = await this.customers.findActiveKey(hash);
    if (!row) return null;
    const principal: ApiKeyCaller = { kind: 'api-key', customerId: row.customer_id, environment: row.environment, keyId: apiKeyId(hash) };
    this.cache.set(hash, principal);
    return principal;
  }
}
