import type { Environment } from '../auth/principal.js';

/** Who acted: an API key, a machine client, an anonymous caller of a tenant, or pharmacy staff (an admin command). */
export type ActorType = 'api_key' | 'client' | 'tenant' | 'staff';

/**
 * One access to patient data: who (customer, environment, actor), what (operation, read or
 * write, the status answered, the ids of the records it named or answered) and when. Never
 * a field value.
 */
export interface AuditEvent {
  /** `aud_...`, unique. */
  id: string;
  /** ISO 8601 with milliseconds, UTC. */
  at: string;
  /** The customer whose records were touched; null for a staff action that touched none. */
  customer_id: string | null;
  environment: Environment | null;
  actor_type: ActorType;
  /** The API key's id (first 16 hex digits of its SHA-256), the client id, or the staff member's system user. */
  actor_id: string | null;
  /** The spec's operationId, or `admin <command> <action>` for staff. */
  operation: string;
  action: 'read' | 'write';
  /** The HTTP status answered (staff actions: 200, or the status of the error that stopped them). */
  status: number;
  request_id: string;
  /** The caller's IP address, or the host a staff command ran on. */
  source: string | null;
  record_ids: string[];
}

/**
 * The events one flush wrote, oldest first: a segment of the trail. Writing a few hundred
 * events as one row (and each record id once) is what keeps recording cheap (see
 * audit-trail.ts). Append-only: a trigger refuses every UPDATE; rows leave only by retention.
 */
export interface AuditSegmentsTable {
  /** `aus_...`, unique. */
  id: string;
  first_at: string;
  last_at: string;
  event_count: number;
  /** The events: a JSON array of `AuditEvent`s, deflated and in base64 (segment-events.ts; older segments plain JSON). */
  events: string;
}

/** Each record id named in a segment, once: "who touched this record" is an index lookup. */
export interface AuditSegmentRecordsTable {
  segment_id: string;
  record_id: string;
  /** The segment's `last_at` (retention deletes by it). */
  last_at: string;
}

declare module '../db/database.js' {
  interface Database {
    audit_segments: AuditSegmentsTable;
    audit_segment_records: AuditSegmentRecordsTable;
  }
}
