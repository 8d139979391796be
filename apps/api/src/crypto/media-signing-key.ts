import { isPostgresUrl, type Config } from '../config.js';
import { embeddedKey } from './key-files.js';

/** The key file of the embedded database, beside the database file. */
export const MEDIA_SIGNING_KEY_FILE = 'media-signing.key';

export type MediaSigningKeyConfig = Pick<Config, 'databaseUrl'> & { media: Pick<Config['media'], 'signingKey'> };

/**
 * The HMAC key that signs media addresses. MEDIA_SIGNING_KEY when set; otherwise, on the
 * embedded database, the key of `media-signing.key` beside the database file; on PostgreSQL
 * (several processes, no shared file) MEDIA_SIGNING_KEY is required. Rotating it voids
 * every address issued before (they are short-lived; clients ask again).
 */
export function loadMediaSigningKey(config: MediaSigningKeyConfig): Buffer {
  if (config.media.signingKey) return config.media.signingKey;
  if (isPostgresUrl(config.databaseUrl)) {
    throw new Error('MEDIA_SIGNING_KEY is required on PostgreSQL to sign and verify media addresses (openssl rand -base64 32)');
  }
  return embeddedKey(config.databaseUrl, MEDIA_SIGNING_KEY_FILE);
}
