import { randomFillSync } from 'node:crypto';
import { now } from './clock.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from the CSPRNG 4 KiB at a time, each byte used once: a fill request
 * makes several tokens, and a call to the CSPRNG per token took 2-3% of its CPU.
 */
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]!;
}

/** A random base62 string; 24 characters carry about 143 bits. */
export function randomToken(length = 24): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 * 62: no modulo bias
  }
  return out;
}

/** Now on the service's clock (clock.ts), as ISO 8601. */
export function nowIso(): string {
  return now().toISOString();
}

/**
 * A new tenant id: the customer's name as a DNS label (lower-case letters, digits and
 * hyphens, at most 40 characters) and 8 random characters, e.g. `acme-health-k3x9q2mz`,
 * so that it can name the tenant's domain (`https://<tenant_id>.auth.<domain>/`).
 */
export function newTenantId(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40)
    .replace(/^-+|-+$/g, '');
  return `${slug || 'tenant'}-${randomToken(8).toLowerCase()}`;
}
