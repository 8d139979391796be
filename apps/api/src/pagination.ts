import { createHash } from 'node:crypto';
import type { Owner } from './auth/principal.js';
import { invalidField } from './errors.js';

/**
 * Opaque cursors for cursor-paginated lists: the position after the last item answered,
 * and whose list it is, base64url-encoded JSON. Clients pass them back unchanged as `next`.
 */
interface Cursor {
  /** The sort key of the last item answered (a timestamp, for lists in creation order). */
  after: string;
  /** The token of that item, breaking ties between equal sort keys. */
  token: string;
}

/** Whose list a cursor pages: it is accepted only by the same owner (customer and environment), for the same list. */
export interface CursorScope {
  owner: Owner;
  /** The list's name, e.g. `fill_requests`. */
  list: string;
}

/**
 * A digest of the scope a cursor was issued for. It binds the cursor without being a
 * secret: lists are read through the owner's own records whatever the cursor says, so a
 * cursor of another owner could never show that owner's records; it is refused so that the
 * mistake is a clear 400, not a silently wrong page.
 */
function scopeDigest({ owner, list }: CursorScope): string {
  return createHash('sha256').update(JSON.stringify([list, owner.customerId, owner.environment])).digest('base64url').slice(0, 16);
}

export function encodeCursor(scope: CursorScope, cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.after, cursor.token, scopeDigest(scope)])).toString('base64url');
}

/** Decodes a cursor issued for `scope` from `key` (the query parameter's name), or refuses it as a 400. */
export function decodeCursor(scope: CursorScope, value: string, key = 'next'): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parsed) && parsed.length === 3 && parsed.every((p) => typeof p === 'string') && parsed[2] === scopeDigest(scope)) {
      return { after: parsed[0] as string, token: parsed[1] as string };
    }
  } catch {
    // fall through to the refusal below
  }
  throw invalidField(key, 'is not a valid page token');
}
