import { describe, expect, it } from 'vitest';
import type { AuditRepository } from '../src/audit/audit-repository.js';
import { AUDIT_BATCH, AuditTrail, type AuditEntry } from '../src/audit/audit-trail.js';
import type { AuditEvent, AuditSegmentRecordsTable, AuditSegmentsTable } from '../src/audit/audit-tables.js';
import { decodeSegmentEvents } from '../src/audit/segment-events.js';
import type { Transactor } from '../src/db/transactor.js';

/** A repository that keeps what it is given, refusing while `down` is set. */
function memory() {
  const state = { down: false, segments: [] as AuditSegmentsTable[], events: [] as AuditEvent[], records: [] as AuditSegmentRecordsTable[], errors: [] as unknown[] };
  const repository = {
    async append(_trx: unknown, segment: AuditSegmentsTable, records: readonly AuditSegmentRecordsTable[]) {
      if (state.down) throw new Error('database unavailable');
      state.segments.push(segment);
      state.events.push(...decodeSegmentEvents(segment.events));
      state.records.push(...records);
    },
  } as unknown as AuditRepository;
  const transactor: Transactor = { run: (work) => work(undefined as never) };
  const log = { error: (entry: unknown) => state.errors.push(entry) } as never;
  return { state, repository, transactor, log };
}

const entry = (n: number, recordIds: unknown[] = [`pt_${n}`]): AuditEntry => ({
  customerId: 'cus_1',
  environment: 'sandbox',
  actorType: 'api_key',
  actorId: 'k1',
  operation: 'getPatient',
  action: 'read',
  status: 200,
  requestId: `req_${n}`,
  source: '127.0.0.1',
  recordIds,
});

const config = { enabled: true, flushMs: 250, retentionMs: null, bufferMax: 1000 };

describe('the audit trail buffer', () => {
  it('keeps what a failed flush could not write, in order, and writes it with the next', async () => {
    const { state, repository, transactor, log } = memory();
    const trail = new AuditTrail(repository, transactor, config, log);
    trail.record(entry(1));
    state.down = true;
    await expect(trail.flush()).rejects.toThrow('database unavailable');
    trail.record(entry(2));
    expect(trail.waiting).toBe(2);
    state.down = false;
    expect(await trail.flush()).toBe(2);
    expect(state.events.map((e) => e.request_id)).toEqual(['req_1', 'req_2']);
    expect(state.segments).toHaveLength(1);
    expect(state.segments[0]!.event_count).toBe(2);
    expect(state.records.map((r) => r.record_id)).toEqual(['pt_1', 'pt_2']);
    expect(trail.waiting).toBe(0);
  });

  it('drops the oldest beyond AUDIT_BUFFER_MAX and says how many in the log', async () => {
    const { state, repository, transactor, log } = memory();
    const trail = new AuditTrail(repository, transactor, { ...config, bufferMax: 1000 }, log);
    for (let n = 1; n <= 1003; n++) trail.record(entry(n));
    expect(trail.waiting).toBe(1000);
    expect(state.errors).toHaveLength(3);
    await trail.flush();
    expect(state.events[0]!.request_id).toBe('req_4');
    expect(state.records[0]!.record_id).toBe('pt_4');
  });

  it('writes each record id of a flush once, however many events name it', async () => {
    const { state, repository, transactor, log } = memory();
    const trail = new AuditTrail(repository, transactor, config, log);
    for (let n = 1; n <= 300; n++) trail.record(entry(n, ['pt_same', `rx_${n % 3}`]));
    expect(await trail.flush()).toBe(300);
    expect(state.events).toHaveLength(300);
    expect(state.records.map((r) => r.record_id).sort()).toEqual(['pt_same', 'rx_0', 'rx_1', 'rx_2']);
  });

  it('asks for a flush when a full batch waits', () => {
    const { repository, transactor, log } = memory();
    const trail = new AuditTrail(repository, transactor, config, log);
    let pokes = 0;
    trail.onBacklog(() => pokes++);
    for (let n = 1; n < AUDIT_BATCH; n++) trail.record(entry(n));
    expect(pokes).toBe(0);
    trail.record(entry(AUDIT_BATCH));
    expect(pokes).toBe(1);
  });

  it('stores id-shaped strings only, each once, at most 500 per event', async () => {
    const { state, repository, transactor, log } = memory();
    const trail = new AuditTrail(repository, transactor, config, log);
    const many = Array.from({ length: 600 }, (_, i) => `rx_${i}`);
    trail.record(entry(1, ['pt_1', 'pt_1', 'Jane Doe', 42, null, { token: 'x' }, 'a'.repeat(65), ...many]));
    await trail.flush();
    const ids = state.events[0]!.record_ids;
    expect(ids.slice(0, 2)).toEqual(['pt_1', 'rx_0']);
    expect(ids).toHaveLength(500);
    expect(state.records).toHaveLength(500);
  });

  it('records nothing when AUDIT_TRAIL is off', async () => {
    const { state, repository, transactor, log } = memory();
    const trail = new AuditTrail(repository, transactor, { ...config, enabled: false }, log);
    trail.record(entry(1));
    expect(await trail.flush()).toBe(0);
    expect(state.events).toEqual([]);
  });
});
