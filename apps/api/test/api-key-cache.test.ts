import { describe, expect, it } from 'vitest';
import { ApiKeyAuthenticator, hashApiKey } from '../src/customers/api-keys.js';
import type { CustomerRepository } from '../src/customers/customer-repository.js';

/** A repository that counts lookups and knows the keys in `active`. */
function repository(active: Set<string>) {
  const calls = { count: 0 };
  const customers = {
    async findActiveKey(hash: string) {
      calls.count++;
      return active.has(hash) ? { customer_id: 'cus_1', environment: 'sandbox' as const } : undefined;
    },
  } as unknown as CustomerRepository;
  return { customers, calls };
}

describe('the API-key cache', () => {
  it('answers a known key from the cache until the TTL passes', async () => {
    const active = new Set([hashApiKey('sk_sandbox_a')]);
    const { customers, calls } = repository(active);
    // A TTL long enough that the two first lookups fall inside it on a loaded machine.
    const auth = new ApiKeyAuthenticator(customers, 1000);
    const caller = { kind: 'api-key', customerId: 'cus_1', environment: 'sandbox', keyId: hashApiKey('sk_sandbox_a').slice(0, 16) };
    expect(await auth.authenticate('sk_sandbox_a')).toEqual(caller);
    expect(await auth.authenticate('sk_sandbox_a')).toEqual(caller);
    expect(calls.count).toBe(1);
    active.clear(); // revoked: seen once the cached hit expires
    await new Promise((done) => setTimeout(done, 1100));
    expect(await auth.authenticate('sk_sandbox_a')).toBeNull();
    expect(calls.count).toBe(2);
  });

  it('does not cache unknown keys, and keeps at most maxEntries', async () => {
    const active = new Set<string>();
    const { customers, calls } = repository(active);
    const auth = new ApiKeyAuthenticator(customers, 60_000, 2);
    expect(await auth.authenticate('sk_sandbox_x')).toBeNull();
    active.add(hashApiKey('sk_sandbox_x'));
    expect(await auth.authenticate('sk_sandbox_x')).not.toBeNull();
    for (const key of ['sk_sandbox_y', 'sk_sandbox_z']) active.add(hashApiKey(key));
    await auth.authenticate('sk_sandbox_y');
    await auth.authenticate('sk_sandbox_z'); // evicts x
    calls.count = 0;
    await auth.authenticate('sk_sandbox_x');
    expect(calls.count).toBe(1);
  });
});
