import { constants, deflateRaw, inflateRawSync } from 'node:zlib';
import type { AuditEvent } from './audit-tables.js';

/**
 * How a segment's events are stored (`audit_segments.events`): their JSON, deflated and in
 * base64. A segment's events repeat the same keys and mostly the same values (one customer,
 * one key, a few operations): 500 events are about 150 KB of JSON and 5 KB deflated. Fewer
 * bytes to insert, to write to the database's log and to copy back at its checkpoints, and a
 * trail kept six years takes a thirtieth of the disk. Deflating runs on libuv's thread pool,
 * not on the event loop that serves requests.
 *
 * Segments written before this are plain JSON, which always begins with `[` (a character
 * base64 never holds): both are read.
 */
export function encodeSegmentEvents(events: readonly AuditEvent[]): Promise<string> {
  return new Promise((resolve, reject) =>
    deflateRaw(JSON.stringify(events), { level: constants.Z_BEST_SPEED }, (error, deflated) => (error ? reject(error) : resolve(deflated.toString('base64')))),
  );
}

/** The events of a stored segment, in either form (`encodeSegmentEvents`). */
export function decodeSegmentEvents(stored: string): AuditEvent[] {
  const json = stored.startsWith('[') ? stored : inflateRawSync(Buffer.from(stored, 'base64')).toString('utf8');
  return JSON.parse(json) as AuditEvent[];
}
