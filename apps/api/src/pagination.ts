import { invalidField } from './errors.js';

/**
 * Opaque cursors for cursor-paginated lists: the position after the last item answered,
 * base64url-encoded JSON. Clients pass them back unchanged as `next`.
 */
interface Cursor {
  /** The sort key of the last item answered (a timestamp, for lists in creation order). */
  after: string;
  /** The token of that item, breaking ties between equal sort keys. */
  token: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.after, cursor.token])).toString('base64url');
}

/** Decodes a cursor from `key` (the query parameter's name), or refuses it as a 400. */
export function decodeCursor(value: string, key = 'next'): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string')) {
      return { after: parsed[0] as string, token: parsed[1] as string };
    }
  } catch {
    // fall through to the refusal below
  }
  throw invalidField(key, 'is not a valid page token');
}
