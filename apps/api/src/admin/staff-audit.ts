import { hostname, userInfo } from 'node:os';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Owner } from '../auth/principal.js';
import type { RecordedEvent } from '../events/event-outbox.js';

/** The staff member behind an admin command: the system user (the one who ran sudo, if any). */
export function staffMember(): string {
  if (process.env.SUDO_USER) return process.env.SUDO_USER;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** A finished staff action: what it was, how it ended, and the events and owners it touched. */
export interface StaffActionDone {
  operation: string;
  recordIds: string[];
  requestId: string;
  status: number;
  events: readonly RecordedEvent[];
  owners: readonly Owner[];
}

/** The record ids an event names: its request id and every `*_token` of its details. */
function eventRecordIds(event: RecordedEvent): unknown[] {
  const details = Object.entries(event.envelope.details).filter(([key]) => key.endsWith('_token'));
  return [event.envelope.request_id, ...details.map(([, value]) => value)];
}

/**
 * Records a staff action (`pnpm admin fill dispense ...`) in the audit trail: one event per
 * customer whose records it changed, or one without a customer when it changed none (it
 * failed, or the record was not found).
 */
export function auditStaffAction(audit: AuditTrail, done: StaffActionDone): void {
  const recordIds = [...done.recordIds, ...done.events.flatMap(eventRecordIds)];
  const owners: (Owner | null)[] = done.owners.length ? [...done.owners] : [null];
  for (const owner of owners) {
    audit.record({
      customerId: owner?.customerId ?? null,
      environment: owner?.environment ?? null,
      actorType: 'staff',
      actorId: staffMember(),
      operation: `admin ${done.operation}`,
      action: 'write',
      status: done.status,
      requestId: done.requestId,
      source: hostname(),
      recordIds,
    });
  }
}
