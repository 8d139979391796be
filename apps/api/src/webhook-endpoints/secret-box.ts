import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isPostgresUrl, type Config } from '../config.js';

/**
 * Encrypts stored secrets with AES-256-GCM under the server key. A sealed value is
 * `v1:` + base64(iv 12 bytes | tag 16 bytes | ciphertext); `context` (the owner) is bound
 * as associated data, so a sealed value copied to another row does not open.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {}

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, context: string): string {
    if (!sealed.startsWith('v1:')) throw new Error('unknown sealed secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** The key file of the embedded database: `secrets.key` beside the database file. */
function secretsKeyFile(databaseUrl: string): string {
  return join(dirname(resolve(databaseUrl.replace(/^file:/, ''))), 'secrets.key');
}

/**
 * The server key: SECRETS_KEY when set. Otherwise, on the embedded database, the key in
 * `secrets.key` beside the database file, generated (mode 0600) the first time it is
 * needed; on PostgreSQL (several processes, no shared file) SECRETS_KEY is required.
 */
export function loadSecretsKey(config: Pick<Config, 'secretsKey' | 'databaseUrl'>): Buffer {
  if (config.secretsKey) return config.secretsKey;
  if (isPostgresUrl(config.databaseUrl)) {
    throw new Error('SECRETS_KEY is required on PostgreSQL to store webhook signing secrets (openssl rand -base64 32)');
  }
  const file = secretsKeyFile(config.databaseUrl);
  const read = (): Buffer => {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} must hold the base64 of 32 bytes`);
    return key;
  };
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('base64')}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return read();
}

/** A box that loads the key on first use (so a service without endpoints never needs it). */
export class LazySecretBox {
  private box: SecretBox | undefined;

  constructor(private readonly config: Pick<Config, 'secretsKey' | 'databaseUrl'>) {}

  private get(): SecretBox {
    this.box ??= new SecretBox(loadSecretsKey(this.config));
    return this.box;
  }

  seal(plain: string, context: string): string {
    return this.get().seal(plain, context);
  }

  open(sealed: string, context: string): string {
    return this.get().open(sealed, context);
  }
}
