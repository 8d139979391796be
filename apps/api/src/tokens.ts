import { randomFillSync } from 'node:crypto';
import { nowMs } from './clock.js';

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

/**
 * Characters of a record token that tell its creation time: 62^7 ms reach from 1970 to 2081
 * (after that the digits wrap around and new tokens sort first again, nothing else changes).
 */
const TIME_CHARS = 7;
let prefixMs = -1;
let prefix = '';

/** `ms` as TIME_CHARS base62 digits, most significant first: byte order is time order. */
function timePrefix(ms: number): string {
  if (ms !== prefixMs) {
    let out = '';
    for (let i = 0, rest = ms; i < TIME_CHARS; i++, rest = Math.floor(rest / 62)) out = ALPHABET[rest % 62]! + out;
    prefixMs = ms;
    prefix = out;
  }
  return prefix;
}

/**
 * A new record's token (a patient, a prescription, a fill request, an event...): base62 like
 * randomToken, its first 7 characters the creation millisecond and the rest random (17 of the
 * 24 carry about 101 bits). A record keyed by it goes in at the end of its table's index,
 * not at a random place in it, so the records of one commit share index pages: the
 * embedded database's write-ahead log gets a few pages for a batch of creates, not one per
 * index per record. Record tokens name records and grant nothing (every read checks the
 * owner), so the time they tell is no secret; secrets stay randomToken.
 */
export function recordToken(length = 24): string {
  return timePrefix(Date.now()) + randomToken(length - TIME_CHARS);
}

/**
 * A new 24-hex id in MongoDB's ObjectId layout, as the consult platform's ids are: 4 bytes of
 * the creation second, then 8 random bytes (time-ordered, as recordToken is, for its index).
 */
export function recordObjectId(): string {
  let out = Math.floor(Date.now() / 1000).toString(16).padStart(8, '0');
  for (let i = 0; i < 8; i++) out += randomByte().toString(16).padStart(2, '0');
  return out;
}

let isoMs = Number.NaN;
let iso = '';

/**
 * Now on the service's clock (clock.ts), as ISO 8601. The text of the last millisecond asked
 * for is kept: the requests of one turn ask for it several times each, and making it took
 * 1.4% of a patient create's time.
 */
export function nowIso(): string {
  const ms = nowMs();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
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
