import type { Owner } from '../auth/principal.js';
import { ownerColumns } from '../db/ownership.js';
import { recordToken } from '../tokens.js';
import type { WebhookResult } from '../webhook-endpoints/webhook-sender.js';
import type { DeliveryAttemptRepository, DeliveryAttemptRow } from './delivery-attempt-repository.js';
import type { AttemptErrorKind } from './delivery-attempt-tables.js';

/** How long attempts are kept (they explain recent deliveries; the event keeps its own summary). */
export const ATTEMPT_RETENTION_MS = 30 * 24 * 3_600_000;

/** The kind of failure behind a sender's error text (a Node error code or the sender's own words); never the text itself. */
export function errorKindOf(error: string | undefined): AttemptErrorKind {
  const text = error ?? '';
  if (text.startsWith('timeout')) return 'timeout';
  if (text.includes('loopback, private or link-local')) return 'refused-address';
  if (text === 'ECONNREFUSED') return 'connection-refused';
  if (text === 'ENOTFOUND' || text === 'EAI_AGAIN') return 'dns';
  if (/CERT|TLS|SSL|SELF_SIGNED/.test(text)) return 'tls';
  if (text === 'invalid url') return 'invalid-url';
  return 'connection';
}

/** What one attempt came to, as the delivery worker measured it. */
export interface MeasuredAttempt {
  owner: Owner;
  eventId: string;
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  result: WebhookResult;
}

/** The row that records an attempt. */
export function attemptRow(a: MeasuredAttempt): DeliveryAttemptRow {
  return {
    id: `att_${recordToken(20)}`,
    event_id: a.eventId,
    ...ownerColumns(a.owner),
    attempt: a.attempt,
    attempted_at: a.attemptedAt,
    outcome: a.result.delivered ? 'delivered' : 'failed',
    status_code: a.result.statusCode,
    error_kind: a.result.statusCode === null ? errorKindOf(a.result.error) : null,
    duration_ms: Math.max(0, Math.round(a.durationMs)),
  };
}

/**
 * The delivery attempts of events (written by `DeliveryOutcomes` with each outcome): read
 * per event by the dashboard, and deleted after `ATTEMPT_RETENTION_MS`.
 */
export class DeliveryAttempts {
  constructor(
    private readonly repository: DeliveryAttemptRepository,
    private readonly retentionMs = ATTEMPT_RETENTION_MS,
  ) {}

  /** The owner's attempts of these events, newest first, by event id. */
  async ofEvents(owner: Owner, eventIds: readonly string[]): Promise<Map<string, DeliveryAttemptRow[]>> {
    const byEvent = new Map<string, DeliveryAttemptRow[]>();
    for (const row of await this.repository.ofEvents(owner, eventIds)) {
      if (!byEvent.has(row.event_id)) byEvent.set(row.event_id, []);
      byEvent.get(row.event_id)!.push(row);
    }
    return byEvent;
  }

  /** Deletes attempts older than the retention; answers how many. */
  prune(now = Date.now()): Promise<number> {
    return this.repository.deleteBefore(new Date(now - this.retentionMs).toISOString());
  }
}
