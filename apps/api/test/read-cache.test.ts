import { describe, expect, it } from 'vitest';
import { ReadCache } from '../src/read-cache.js';

describe('the read cache', () => {
  it('answers a cached value until the key is invalidated', async () => {
    const cache = new ReadCache<string>(60_000);
    let reads = 0;
    const load = () => cache.load('k', async () => `v${++reads}`);
    expect(await load()).toBe('v1');
    expect(await load()).toBe('v1');
    cache.invalidate('k');
    expect(await load()).toBe('v2');
  });

  it('never stores a value read while a write invalidated the key', async () => {
    const cache = new ReadCache<string>(60_000);
    let release!: () => void;
    const slowRead = cache.load('k', () => new Promise<string>((done) => (release = () => done('stale'))));
    cache.invalidate('k'); // a write lands while the read is in flight
    release();
    expect(await slowRead).toBe('stale');
    expect(await cache.load('k', async () => 'fresh')).toBe('fresh');
  });

  it('does not cache misses, and a TTL of 0 turns it off', async () => {
    const cache = new ReadCache<string>(60_000);
    expect(await cache.load('k', async () => undefined)).toBeUndefined();
    expect(await cache.load('k', async () => 'now')).toBe('now');
    const off = new ReadCache<string>(0);
    await off.load('k', async () => 'a');
    expect(await off.load('k', async () => 'b')).toBe('b');
  });

  it('expires entries after the TTL', async () => {
    const cache = new ReadCache<string>(20);
    await cache.load('k', async () => 'old');
    await new Promise((done) => setTimeout(done, 30));
    expect(await cache.load('k', async () => 'new')).toBe('new');
  });

  it('keeps at most maxEntries values, dropping the least recently used', async () => {
    const cache = new ReadCache<string>(60_000, 2);
    let reads = 0;
    const load = (key: string) => cache.load(key, async () => `${key}${++reads}`);
    await load('a');
    await load('b');
    await load('a'); // a is now the most recently used
    await load('c'); // evicts b
    expect(await load('a')).toBe('a1');
    expect(await load('b')).toBe('b4');
  });
});
