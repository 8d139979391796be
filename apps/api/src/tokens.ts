import { randomBytes } from 'node:crypto';
import { now } from './clock.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base62 string; 24 characters carry about 143 bits. */
export function randomToken(length = 24): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 * 62: no modulo bias
  }
  return out.length === length ? out : out + randomToken(length - out.length);
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
