import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** An entity tag of `If-None-Match`, weak or strong (RFC 9110, 8.8.3); its opaque part may hold commas. */
const ENTITY_TAG = /(?:W\/)?("[^"]*")/g;
/** One content coding of `Accept-Encoding` and its weight (RFC 9110, 12.5.3). */
const CODING = /^\s*([^\s;]+)\s*(?:;\s*q\s*=\s*([0-9.]+)\s*)?$/i;

const gzipped = promisify(gzip);

/** One form of the document on the wire: its bytes and their strong entity tag. */
export interface Representation {
  bytes: Buffer;
  etag: string;
  /** `gzip`, or undefined for the bytes as they are. */
  encoding: 'gzip' | undefined;
}

/**
 * The bundled OpenAPI document as `GET /v1/open-api/api.yml` serves it: its text, the bytes
 * of that text (encoded once, not on every request: it is about a megabyte), and their
 * version as a strong entity tag (of their SHA-256), so a client that polls the document
 * can ask whether it changed (`If-None-Match`) instead of reading it again. Compressed with
 * gzip (about a seventh of the size) for a client that accepts it, once, at the first such
 * request: not at start, where it would cost every process tens of milliseconds.
 */
export class InterfaceDocument {
  readonly bytes: Buffer;
  readonly etag: string;
  /** The gzip form's tag: a strong tag names one representation (RFC 9110, 8.8.3). */
  readonly gzipEtag: string;
  private compressed: Promise<Representation> | undefined;

  constructor(readonly text: string) {
    this.bytes = Buffer.from(text, 'utf8');
    const digest = createHash('sha256').update(this.bytes).digest('base64url');
    this.etag = `"sha256-${digest}"`;
    this.gzipEtag = `"sha256-${digest}-gzip"`;
  }

  /** The form to answer a request whose `Accept-Encoding` is `acceptEncoding`. */
  async representationFor(acceptEncoding: string | undefined): Promise<Representation> {
    if (!acceptsGzip(acceptEncoding)) return { bytes: this.bytes, etag: this.etag, encoding: undefined };
    this.compressed ??= gzipped(this.bytes).then((bytes) => ({ bytes, etag: this.gzipEtag, encoding: 'gzip' as const }));
    return this.compressed;
  }

  /**
   * Whether an `If-None-Match` header names this version: `*`, or one of its tags equal to
   * either form's tag by the weak comparison `If-None-Match` uses (`W/` ignored). Both forms
   * hold the same document, so a copy of either is still valid.
   */
  isNamedBy(ifNoneMatch: string | undefined): boolean {
    if (ifNoneMatch === undefined) return false;
    if (ifNoneMatch.trim() === '*') return true;
    for (const [, opaque] of ifNoneMatch.matchAll(ENTITY_TAG)) if (opaque === this.etag || opaque === this.gzipEtag) return true;
    return false;
  }

  /** The tag of the form `acceptEncoding` selects, without compressing anything (for a `304`). */
  etagFor(acceptEncoding: string | undefined): string {
    return acceptsGzip(acceptEncoding) ? this.gzipEtag : this.etag;
  }
}

/**
 * Whether `Accept-Encoding` accepts gzip: `gzip` (or its alias `x-gzip`) with a weight above
 * zero, or else `*` with one. A coding weighted `q=0` is refused; absent, nothing but the
 * bytes as they are is asked for.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  let star: boolean | undefined;
  for (const part of acceptEncoding.split(',')) {
    const match = CODING.exec(part);
    if (!match) continue;
    const coding = match[1]!.toLowerCase();
    const weight = match[2] === undefined ? 1 : Number(match[2]);
    const accepted = Number.isFinite(weight) && weight > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') star = accepted;
  }
  return star ?? false;
}
