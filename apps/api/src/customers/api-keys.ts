import { createHash } from 'node:crypto';
import type { ApiKeyCaller, Environment } from '../auth/principal.js';
import type { CustomerRepository } from './customer-repository.js';
import { randomToken } from '../tokens.js';

const KEY_PREFIX: Record<Environment, string> = { sandbox: 'sk_sandbox_', production: 'sk_live_' };

/** A new API key for an environment. The prefix is for humans and secret scanners only. */
export function generateApiKey(environment: Environment): string {
  return KEY_PREFIX[environment] + randomToken(32);
}

/** Keys carry ~190 random bits, so one fast hash is enough; a slow KDF would add nothing. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

interface CacheEntry {
  principal: ApiKeyCaller;
  expires: number;
}

/** Resolves API keys to their callers, caching hits briefly so reads do not hit the database. */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly customers: CustomerRepository,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
  ) {}

  async authenticate(key: string): Promise<ApiKeyCaller | null> {
    const hash = hashApiKey(key);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.expires > now) return hit.principal;
    const row = await this.customers.findActiveKey(hash);
    if (!row) {
      this.cache.delete(hash);
      return null;
    }
    const principal: ApiKeyCaller = { kind: 'api-key', customerId: row.customer_id, environment: row.environment };
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(hash, { principal, expires: now + this.ttlMs });
    return principal;
  }
}
