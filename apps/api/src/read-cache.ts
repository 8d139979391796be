/**
 * A small in-process read-through cache for records read far more often than written.
 *
 * Writes made through the service invalidate their key; a read that raced a write never
 * stores what it read (each key has a generation, bumped by every invalidation). Writes by
 * another process are seen after `ttlMs` at the latest, so the cache is only enabled where
 * one process owns the database (the embedded database); a `ttlMs` of 0 disables it.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async load(key: string, loader: () => Promise<V | undefined>): Promise<V | undefined> {
    if (this.ttlMs <= 0) return loader();
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const generation = this.generations.get(key) ?? 0;
    const value = await loader();
    if (value !== undefined && (this.generations.get(key) ?? 0) === generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    }
    return value;
  }

  invalidate(key: string): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    if (this.generations.size > this.maxEntries * 2) this.generations.clear();
  }
}
