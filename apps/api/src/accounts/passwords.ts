import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt parameters: N = 2^15, r = 8, p = 3, 32 MiB of memory per hash, one of OWASP's
 * equivalent scrypt settings (its Password Storage Cheat Sheet). They are written into every
 * hash, so a stored hash keeps verifying after they change.
 */
const COST = { N: 2 ** 15, r: 8, p: 3 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$<N>$<r>$<p>$<salt, base64>$<hash, base64>`, with a fresh random salt. Runs off the event loop. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Whether the password is the one hashed (compared in constant time). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
