import { LRUCache } from 'lru-cache';

/**
 * A small in-process read-through cache for records read far more often than written.
 *
 * Writes made through the service invalidate their key; a read that raced a write never
 * stores what it read (each key has a generation, bumped by every invalidation). Writes by
 * another process are seen after `ttlMs` at the latest, so the cache is only enabled where
 * one process owns the database (the embedded database); a `ttlMs` of 0 disables it.
 */
export class ReadCache<V extends {}> {
  private readonly entries?: LRUCache<string, V>;
  private readonly generations: LRUCache<string, number>;

  constructor(ttlMs: number, maxEntries = 10_000) {
    if (ttlMs > 0) this.entries = new LRUCache({ max: maxEntries, ttl: ttlMs });
    this.generations = new LRUCache({ max: maxEntries * 2 });
  }

  async load(key: string, loader: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!this.entries) return loader();
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const generation = this.generations.get(key) ?? 0;
    const value = await loader();
    if (value !== undefined && (this.generations.get(key) ?? 0) === generation) this.entries.set(key, value);
    return value;
  }

  invalidate(key: string): void {
    if (!this.entries) return;
    this.entries.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }
}
