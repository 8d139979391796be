import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Keyring, loadKeyring, type KeyringConfig, type SealingKey } from './keyring.js';

/** A sealed value that does not open; the message names the field, record and key id, never the value. */
export class SealedValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedValueError';
  }
}

const FORMAT = 'v2';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals values with AES-256-GCM under the keyring's current key, each in a context (its
 * table, column and record: sealed-columns.ts) bound as associated data, so a value copied
 * to another row or column does not open. A sealed value is
 * `v2:<key id>:` + base64(iv 12 bytes | tag 16 bytes | ciphertext), so it opens with
 * whichever configured key sealed it. The keyring
 * is loaded on first use, so a process that never seals or opens never needs a key.
 */
export class SecretBox {
  private loaded: Keyring | undefined;

  constructor(private readonly loadKeys: () => Keyring) {}

  /** A box over the server's keyring (SECRETS_KEY, SECRETS_KEY_PREVIOUS, or `secrets.key` on the embedded database). */
  static fromConfig(config: KeyringConfig): SecretBox {
    return new SecretBox(() => loadKeyring(config));
  }

  keyring(): Keyring {
    this.loaded ??= this.loadKeys();
    return this.loaded;
  }

  /** What every value sealed under the current key starts with. */
  currentPrefix(): string {
    return `${FORMAT}:${this.keyring().current.id}:`;
  }

  seal(plain: string, context: string): string {
    const { id, key } = this.keyring().current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${FORMAT}:${id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, context: string): string {
    const { key, raw } = this.parse(sealed, context);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError(`${context} does not open: it was altered, or copied from another record or column`);
    }
  }

  /** The value sealed again under the current key; undefined when it already is. */
  reseal(sealed: string, context: string): string | undefined {
    if (sealed.startsWith(this.currentPrefix())) return undefined;
    return this.seal(this.open(sealed, context), context);
  }

  private parse(sealed: string, context: string): { key: SealingKey; raw: Buffer } {
    const [format, id, body, ...rest] = sealed.split(':');
    if (format !== FORMAT || !id || !body || rest.length > 0) throw new SealedValueError(`${context} is not a sealed value`);
    const key = this.keyring().find(id);
    if (!key) {
      throw new SealedValueError(
        `${context} is sealed with key ${id}, which is configured neither as SECRETS_KEY (or secrets.key) nor in SECRETS_KEY_PREVIOUS`,
      );
    }
    const raw = Buffer.from(body, 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SealedValueError(`${context} is not a sealed value`);
    return { key, raw };
  }
}
