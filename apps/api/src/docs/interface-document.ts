import { createHash } from 'node:crypto';

/** An entity tag of `If-None-Match`, weak or strong (RFC 9110, 8.8.3); its opaque part may hold commas. */
const ENTITY_TAG = /(?:W\/)?("[^"]*")/g;

/**
 * The bundled OpenAPI document as `GET /v1/open-api/api.yml` serves it: its text, the bytes
 * of that text (encoded once, not on every request: it is about a megabyte), and their
 * version as a strong entity tag (of their SHA-256), so a client that polls the document
 * can ask whether it changed (`If-None-Match`) instead of reading it again.
 */
export class InterfaceDocument {
  readonly bytes: Buffer;
  readonly etag: string;

  constructor(readonly text: string) {
    this.bytes = Buffer.from(text, 'utf8');
    this.etag = `"sha256-${createHash('sha256').update(this.bytes).digest('base64url')}"`;
  }

  /**
   * Whether an `If-None-Match` header names this version: `*`, or one of its tags equal to
   * this one by the weak comparison `If-None-Match` uses (`W/` ignored).
   */
  isNamedBy(ifNoneMatch: string | undefined): boolean {
    if (ifNoneMatch === undefined) return false;
    if (ifNoneMatch.trim() === '*') return true;
    for (const [, opaque] of ifNoneMatch.matchAll(ENTITY_TAG)) if (opaque === this.etag) return true;
    return false;
  }
}
