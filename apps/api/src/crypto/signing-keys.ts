import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { isPostgresUrl, type Config } from '../config.js';
import { embeddedKey } from './key-files.js';

/** A public key that verifies tokens, as published at `/.well-known/jwks.json` (RFC 7517, RFC 8037). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** One Ed25519 key: its id, the private half (signs) and the public half (verifies). */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  jwk: PublicJwk;
}

/** The PKCS #8 DER prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The RFC 7638 thumbprint of an Ed25519 public JWK: its id, derived from the key alone. */
function thumbprint(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

/** The Ed25519 key whose private seed is these 32 bytes. */
export function signingKeyOf(seed: Buffer): SigningKey {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const x = publicKey.export({ format: 'jwk' }).x!;
  const kid = thumbprint(x);
  return { kid, privateKey, publicKey, jwk: { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' } };
}

/**
 * The keys of the token issuer: the current one signs; it and the previous ones (kept by a
 * rotation until the tokens they signed have expired) verify, each found by its `kid`.
 */
export class SigningKeys {
  readonly current: SigningKey;
  private readonly byKid = new Map<string, SigningKey>();

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.current = signingKeyOf(current);
    for (const key of [this.current, ...previous.map(signingKeyOf)]) {
      if (!this.byKid.has(key.kid)) this.byKid.set(key.kid, key);
    }
  }

  find(kid: string): SigningKey | undefined {
    return this.byKid.get(kid);
  }

  /** The published key set: the current key first. */
  jwks(): { keys: PublicJwk[] } {
    return { keys: [...this.byKid.values()].map((key) => key.jwk) };
  }
}

export type SigningKeysConfig = Pick<Config, 'databaseUrl'> & { oauth: Pick<Config['oauth'], 'signingKey' | 'previousSigningKeys'> };

/** The key file of the embedded database, beside the database file. */
export const TOKEN_SIGNING_KEY_FILE = 'token-signing.key';

/**
 * The issuer's keys. The current key is TOKEN_SIGNING_KEY when set; otherwise, on the
 * embedded database, the key of `token-signing.key` beside the database file; on PostgreSQL
 * (several processes, no shared file) TOKEN_SIGNING_KEY is required.
 */
export function loadSigningKeys(config: SigningKeysConfig): SigningKeys {
  const { signingKey, previousSigningKeys } = config.oauth;
  if (signingKey) return new SigningKeys(signingKey, previousSigningKeys);
  if (isPostgresUrl(config.databaseUrl)) {
    throw new Error('TOKEN_SIGNING_KEY is required on PostgreSQL to issue and verify access tokens (openssl rand -base64 32)');
  }
  return new SigningKeys(embeddedKey(config.databaseUrl, TOKEN_SIGNING_KEY_FILE), previousSigningKeys);
}
