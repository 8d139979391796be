import { LRUCache } from 'lru-cache';
import type { CustomerRepository } from './customer-repository.js';

/**
 * Tenants by id (`x-tenant-id`), cached: a tenant id never changes hands, so a hit is good
 * for as long as it stays in the cache; misses are cached for 5 seconds, so repeating an
 * unknown id costs one query per 5 seconds.
 */
export class Tenants {
  private readonly known = new LRUCache<string, string>({ max: 10_000 });
  private readonly unknown = new LRUCache<string, true>({ max: 10_000, ttl: 5_000 });

  constructor(private readonly customers: CustomerRepository) {}

  /** The customer whose tenant id this is, or undefined. */
  async customerOf(tenantId: string): Promise<string | undefined> {
    const hit = this.known.get(tenantId);
    if (hit) return hit;
    if (this.unknown.has(tenantId)) return undefined;
    const row = await this.customers.findByTenant(tenantId);
    if (row) this.known.set(tenantId, row.id);
    else this.unknown.set(tenantId, true);
    return row?.id;
  }
}
