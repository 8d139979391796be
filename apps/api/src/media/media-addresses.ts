import { createHmac, timingSafeEqual } from 'node:crypto';
import { nowMs } from '../clock.js';
import { forbidden } from '../errors.js';

export type MediaPurpose = 'read' | 'write';

/** How long addresses live: reads 15 minutes (the real platform's example), v2 reads and writes 24 hours (as the real platform's). */
export const READ_ADDRESS_TTL_S = 15 * 60;
export const LONG_ADDRESS_TTL_S = 24 * 60 * 60;

/**
 * Signed media addresses: `{base}/v1/media/{id}/content?purpose=read&expires=...&signature=...`,
 * the signature an HMAC-SHA-256 under the media signing key of the purpose, the id and the
 * expiry, so an address works for one file, one purpose and until it expires.
 */
export class MediaAddresses {
  constructor(private readonly key: () => Buffer) {}

  private signatureOf(purpose: MediaPurpose, id: string, expires: number): Buffer {
    return createHmac('sha256', this.key()).update(`pharmacy media address\n${purpose}\n${id.toLowerCase()}\n${expires}`).digest();
  }

  /** A signed address of the file, valid `ttlSeconds` from now. */
  address(base: string, purpose: MediaPurpose, id: string, ttlSeconds: number): string {
    const expires = Math.floor(nowMs() / 1000) + ttlSeconds;
    const signature = this.signatureOf(purpose, id, expires).toString('base64url');
    return `${base}/v1/media/${id}/content?purpose=${purpose}&expires=${expires}&signature=${signature}`;
  }

  /** Refuses (403) an address not signed for this purpose, file and expiry, or expired; compared in constant time. */
  verify(purpose: MediaPurpose, id: string, expires: number, signature: string): void {
    const expected = this.signatureOf(purpose, id, expires);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw forbidden('The signed address is not valid.');
    if (expires * 1000 <= nowMs()) throw forbidden('The signed address has expired.');
  }
}
