import { createHmac } from 'node:crypto';
import { isPostgresUrl, type Config } from '../config.js';
import { embeddedKey } from './key-files.js';

/** A key of the keyring and its id: the id travels with every value it seals. */
export interface SealingKey {
  id: string;
  key: Buffer;
}

/**
 * The id of a key: 12 hex digits of HMAC-SHA-256 under the key of a fixed label. It tells
 * keys apart in sealed values and logs without revealing anything of the key.
 */
export function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key).update('pharmacy secrets key id').digest('hex').slice(0, 12);
}

/** The current key, which seals, and the previous keys, which only open (until a re-encryption retires them). */
export class Keyring {
  readonly current: SealingKey;
  private readonly byId = new Map<string, SealingKey>();

  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.current = { id: keyIdOf(current), key: current };
    for (const key of [current, ...previous]) {
      const id = keyIdOf(key);
      if (!this.byId.has(id)) this.byId.set(id, { id, key });
    }
  }

  /** The key with this id, if configured. */
  find(id: string): SealingKey | undefined {
    return this.byId.get(id);
  }

  /** Every key, the current first. */
  get keys(): SealingKey[] {
    return [...this.byId.values()];
  }
}

export type KeyringConfig = Pick<Config, 'secretsKey' | 'previousSecretsKeys' | 'databaseUrl'>;

/** The key file of the embedded database, beside the database file. */
export const SECRETS_KEY_FILE = 'secrets.key';

/**
 * The server's keyring. The current key is SECRETS_KEY when set; otherwise, on the
 * embedded database, the key of `secrets.key` beside the database file; on PostgreSQL
 * (several processes, no shared file) SECRETS_KEY is required. SECRETS_KEY_PREVIOUS adds
 * the keys that still open older values.
 */
export function loadKeyring(config: KeyringConfig): Keyring {
  if (config.secretsKey) return new Keyring(config.secretsKey, config.previousSecretsKeys);
  if (isPostgresUrl(config.databaseUrl)) {
    throw new Error(
      'SECRETS_KEY is required on PostgreSQL to seal and open stored secrets and patient identifiers (openssl rand -base64 32)',
    );
  }
  return new Keyring(embeddedKey(config.databaseUrl, SECRETS_KEY_FILE), config.previousSecretsKeys);
}
