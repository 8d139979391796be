import type { FastifyBaseLogger } from 'fastify';
import type { Environment } from '../auth/principal.js';
import type { AuditConfig } from '../config.js';
import type { Transactor } from '../db/transactor.js';
import { randomToken, recordToken } from '../tokens.js';
import type { AuditQuery, AuditRepository } from './audit-repository.js';
import type { ActorType, AuditEvent } from './audit-tables.js';
import { decodeSegmentEvents, encodeSegmentEvents } from './segment-events.js';

/** One access to patient data, as the API or a staff command reports it. */
export interface AuditEntry {
  /** Whose records: a customer, in an environment when the caller has one; null when no customer's records were touched. */
  customerId: string | null;
  environment: Environment | null;
  actorType: ActorType;
  actorId: string | null;
  operation: string;
  action: 'read' | 'write';
  status: number;
  requestId: string;
  source: string | null;
  /** Ids of the records named or answered; anything that is not shaped like an id is left out. */
  recordIds: Iterable<unknown>;
}

/**
 * What may be stored as a record id: the spec's `Token` shape, which UUIDs and the consult
 * platform's hex ids also fit. A value at an id's place that is not one (a name sent where
 * a token belongs) is never stored: the trail holds no field values.
 */
const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Record ids kept per event (a page of 100 fill requests names 200). */
const MAX_RECORD_IDS = 500;
/** A flush is due at once when this many entries wait. */
export const AUDIT_BATCH = 500;

/** Segments read per query round trip. */
const SEGMENTS_PER_PAGE = 20;

/** An entry waiting in the buffer: when, and what (its record ids already checked). */
interface Pending {
  at: number;
  entry: AuditEntry;
  recordIds: string[];
}

/**
 * The audit trail of patient data access (HIPAA 164.312(b)). Recording costs the request a
 * push onto an in-process buffer; each flush (every AUDIT_FLUSH_MS, at once when
 * AUDIT_BATCH entries wait, and on shutdown) writes what waits as one segment row, plus one
 * row per distinct record id it names, in one transaction: a row per event cost the
 * authenticated GET about a fifth of its throughput on the embedded database. Entries a
 * failed flush could not write stay buffered for the next one, up to AUDIT_BUFFER_MAX.
 */
export class AuditTrail {
  private pending: Pending[] = [];
  private flushing: Promise<number> = Promise.resolve(0);
  private backlog: (() => void) | undefined;
  private dropped = 0;
  private readonly idPrefix = randomToken(10);
  private sequence = 0;

  constructor(
    private readonly repository: AuditRepository,
    private readonly transactor: Transactor,
    private readonly config: AuditConfig,
    private readonly log?: FastifyBaseLogger,
  ) {}

  get enabled(): boolean {
    return this.config.enabled;
  }

  /** How many entries wait to be written. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Called when a full batch waits (the flush worker pokes itself). */
  onBacklog(wake: () => void): void {
    this.backlog = wake;
  }

  record(entry: AuditEntry): void {
    if (!this.config.enabled) return;
    const recordIds: string[] = [];
    for (const value of entry.recordIds) {
      if (recordIds.length === MAX_RECORD_IDS) break;
      if (typeof value === 'string' && RECORD_ID.test(value) && !recordIds.includes(value)) recordIds.push(value);
    }
    this.pending.push({ at: Date.now(), entry, recordIds });
    if (this.pending.length > this.config.bufferMax) this.dropOldest();
    if (this.pending.length === AUDIT_BATCH) this.backlog?.();
  }

  /** Writes every waiting entry; answers how many. Flushes run one after another. */
  flush(): Promise<number> {
    this.flushing = this.flushing.catch(() => 0).then(() => this.write());
    return this.flushing;
  }

  /** The events the query asks for, newest first. */
  async find(query: AuditQuery): Promise<AuditEvent[]> {
    const found: AuditEvent[] = [];
    for (let offset = 0; found.length < query.limit; offset += SEGMENTS_PER_PAGE) {
      const segments = await this.repository.segments(query, offset, SEGMENTS_PER_PAGE);
      for (const segment of segments) {
        const events = decodeSegmentEvents(segment.events);
        for (let i = events.length - 1; i >= 0 && found.length < query.limit; i--) {
          if (matches(events[i]!, query)) found.push(events[i]!);
        }
      }
      if (segments.length < SEGMENTS_PER_PAGE) break;
    }
    return found;
  }

  /** Deletes what retention let go; answers how many events. */
  async prune(now = Date.now()): Promise<number> {
    if (this.config.retentionMs === null) return 0;
    const cutoff = new Date(now - this.config.retentionMs).toISOString();
    return this.transactor.run((trx) => this.repository.deleteBefore(trx, cutoff));
  }

  private async write(): Promise<number> {
    if (this.pending.length === 0) return 0;
    const batch = this.pending;
    this.pending = [];
    const events: AuditEvent[] = [];
    const recordIds = new Set<string>();
    let lastMs = NaN;
    let lastIso = '';
    for (const { at, entry, recordIds: ids } of batch) {
      if (at !== lastMs) (lastMs = at), (lastIso = new Date(at).toISOString());
      events.push({
        id: `aud_${this.idPrefix}${(++this.sequence).toString(36)}`,
        at: lastIso,
        customer_id: entry.customerId,
        environment: entry.environment,
        actor_type: entry.actorType,
        actor_id: entry.actorId,
        operation: entry.operation,
        action: entry.action,
        status: entry.status,
        request_id: entry.requestId,
        source: entry.source,
        record_ids: ids,
      });
      for (const id of ids) recordIds.add(id);
    }
    const id = `aus_${recordToken(20)}`;
    const lastAt = new Date(batch[batch.length - 1]!.at).toISOString();
    const records = [...recordIds].map((recordId) => ({ segment_id: id, record_id: recordId, last_at: lastAt }));
    try {
      const segment = { id, first_at: new Date(batch[0]!.at).toISOString(), last_at: lastAt, event_count: batch.length, events: await encodeSegmentEvents(events) };
      await this.transactor.run((trx) => this.repository.append(trx, segment, records));
      return batch.length;
    } catch (error) {
      // Kept, ahead of what came meanwhile, for the next flush.
      this.pending = batch.concat(this.pending);
      if (this.pending.length > this.config.bufferMax) this.dropOldest();
      throw error;
    }
  }

  /** The buffer is full (the database has refused flushes for a while): the oldest entries go, and the log says how many. */
  private dropOldest(): void {
    const excess = this.pending.length - this.config.bufferMax;
    this.pending = this.pending.slice(excess);
    this.dropped += excess;
    this.log?.error({ dropped: excess, droppedSinceStart: this.dropped, bufferMax: this.config.bufferMax }, 'audit trail buffer full: oldest entries dropped');
  }
}

function matches(event: AuditEvent, query: AuditQuery): boolean {
  return (
    (query.customerId === undefined || event.customer_id === query.customerId) &&
    (query.environment === undefined || event.environment === query.environment) &&
    (query.recordId === undefined || event.record_ids.includes(query.recordId)) &&
    (query.operation === undefined || event.operation === query.operation) &&
    (query.actorId === undefined || event.actor_id === query.actorId) &&
    (query.action === undefined || event.action === query.action) &&
    (query.since === undefined || event.at >= query.since) &&
    (query.until === undefined || event.at < query.until)
  );
}
