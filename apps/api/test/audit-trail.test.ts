import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent as AuditEventView } from '../src/audit/audit-tables.js';
import { decodeSegmentEvents } from '../src/audit/segment-events.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { routes } from '../src/generated/routes.js';
import { cashBody } from './support/fill-request-steps.js';
import { createPatient, insertPrescription, janeInFull } from './support/fixtures.js';
import { pharmacyEnv } from './support/lifecycle-fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { TEST_SECRETS_KEY } from './support/webhook-receiver.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
beforeAll(async () => {
  t = await startTestApp({ ...pharmacyEnv });
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
});
afterAll(async () => t?.close());

const keyId = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** The trail's events for a record, oldest first, once the buffer is written. */
async function trailOf(recordId: string): Promise<AuditEventView[]> {
  await t.app.services.audit.flush();
  return (await t.app.services.audit.find({ recordId, limit: 100 })).reverse();
}

async function admin(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['bin/admin.mjs', ...args], {
    cwd: apiRoot,
    env: { ...process.env, DATABASE_URL: t.database.url, SECRETS_KEY: TEST_SECRETS_KEY, ...pharmacyEnv },
  });
  return JSON.parse(stdout);
}

describe('the audit trail of patient data access', () => {
  it('records who, what and when for every read and write of a patient, and never a field value', async () => {
    const key = acme.production_api_key;
    const patient = await createPatient(t, key, { ...janeInFull, first_name: 'Auditta' });
    const api = t.client(key);
    expect((await api.GET('/v1/patient/{patient_token}', { params: { path: { patient_token: patient } } })).response.status).toBe(200);
    const updated = await api.POST('/v1/patient/{patient_token}', { params: { path: { patient_token: patient } }, body: { phone: '4155550199' } as never });
    expect(updated.response.status).toBe(202);

    const trail = await trailOf(patient);
    expect(trail.map((e) => [e.operation, e.action, e.status])).toEqual([
      ['createPatient', 'write', 201],
      ['getPatient', 'read', 200],
      ['updatePatient', 'write', 202],
    ]);
    for (const event of trail) {
      expect(event).toMatchObject({
        customer_id: acme.customer_id,
        environment: 'production',
        actor_type: 'api_key',
        actor_id: keyId(key),
        record_ids: [patient],
        source: '127.0.0.1',
      });
      expect(event.request_id).toMatch(/^req_/);
      expect(Date.now() - Date.parse(event.at)).toBeLessThan(60_000);
    }
    // No field value reaches the trail's tables (a segment's events read as stored, deflated).
    const segments = await t.database.handle.db.selectFrom('audit_segments').selectAll().execute();
    const rows = JSON.stringify([
      ...segments.map((segment) => ({ ...segment, events: decodeSegmentEvents(segment.events) })),
      ...(await t.database.handle.db.selectFrom('audit_segment_records').selectAll().execute()),
    ]);
    expect(rows).toContain(patient);
    for (const value of ['Auditta', 'Doe', '19800131', '123456789', 'Market', '4155550199', 'jane@example.com']) expect(rows).not.toContain(value);
  });

  it('records the ids a write was given and answered, and each id of a list it answered', async () => {
    const key = acme.sandbox_api_key;
    const patient = await createPatient(t, key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: patient });
    const created = await t.client(key).POST('/v1/fill_request', { body: cashBody(patient, [rx.token]) as never });
    expect(created.response.status).toBe(201);
    const fill = created.data!.request_id;

    const [create] = (await trailOf(fill)).filter((e) => e.operation === 'createFillRequest');
    expect(create!.record_ids).toEqual(expect.arrayContaining([patient, rx.token, fill]));

    const listed = await t.client(key).GET('/v1/fill_requests', { params: { query: { patient_token: patient } as never } });
    expect(listed.response.status).toBe(200);
    const list = (await trailOf(fill)).filter((e) => e.operation === 'listFillRequests');
    expect(list).toHaveLength(1);
    expect(list[0]!.record_ids).toEqual(expect.arrayContaining([fill, patient]));
  });

  it('records refused attempts too, under the caller that made them', async () => {
    const patient = await createPatient(t, acme.production_api_key);
    const peek = await t.client(globex.production_api_key).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: patient } } });
    expect(peek.response.status).toBe(400);
    const attempt = (await trailOf(patient)).find((e) => e.customer_id === globex.customer_id)!;
    expect(attempt).toMatchObject({ operation: 'getPatient', status: 400, actor_id: keyId(globex.production_api_key), record_ids: [patient] });
  });

  it('stores only id-shaped values from an id\'s place: text sent where a token belongs is left out', async () => {
    const key = acme.sandbox_api_key;
    const answer = await t.raw('POST', '/v1/fill_request', {
      headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...cashBody('Jane Doe 1980-01-31', []), medications: [{ prescription_token: 'rx_fine_shape' }] }),
    });
    expect(answer.status).toBe(400);
    await t.app.services.audit.flush();
    const [event] = await t.app.services.audit.find({ customerId: acme.customer_id, operation: 'createFillRequest', action: 'write', limit: 1 });
    expect(event).toMatchObject({ status: 400, record_ids: ['rx_fine_shape'] });
  });

  it('records nothing for operations that touch no patient data (x-phi: false)', async () => {
    const before = await countEvents();
    expect((await t.client(globex.sandbox_api_key).GET('/v1/webhook_endpoint')).response.status).toBeGreaterThanOrEqual(200);
    expect((await t.raw('GET', '/v1/open-api/api.yml')).status).toBe(200);
    await t.app.services.audit.flush();
    expect(await countEvents()).toBe(before);
  });

  it('takes where record ids sit from the spec (the route table)', () => {
    const audit = (id: string) => routes.find((r) => r.operationId === id)!.audit;
    expect(audit('getPatient')).toEqual({ action: 'read', recordIds: [['path', 'patient_token'], ['response', 'patient_token']] });
    expect(audit('listFillRequests')!.recordIds).toContainEqual(['response', 'results', '[]', 'patient_token']);
    expect(audit('createFillRequest')!.recordIds).toContainEqual(['body', 'medications', '[]', 'prescription_token']);
    expect(audit('getPrescriber')).toBeUndefined();
    expect(audit('getWebhookEndpoint')).toBeUndefined();
  });

  it("stores a segment's events deflated, and reads segments stored as plain JSON before", async () => {
    const patient = await createPatient(t, acme.sandbox_api_key);
    await t.app.services.audit.flush();
    const db = t.database.handle.db;
    const stored = await db
      .selectFrom('audit_segments')
      .select('events')
      .where('id', 'in', (sub) => sub.selectFrom('audit_segment_records').select('segment_id').where('record_id', '=', patient))
      .executeTakeFirstOrThrow();
    expect(stored.events).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const [created] = decodeSegmentEvents(stored.events).filter((event) => event.record_ids.includes(patient));
    expect(created).toMatchObject({ operation: 'createPatient', customer_id: acme.customer_id, record_ids: [patient] });

    // A segment as the trail stored them before: its events' JSON as it is.
    const earlier: AuditEventView = { ...created!, id: 'aud_earlier1', record_ids: ['earlierRecord1'] };
    await db.insertInto('audit_segments').values({ id: 'aus_earlier1', first_at: earlier.at, last_at: earlier.at, event_count: 1, events: JSON.stringify([earlier]) }).execute();
    await db.insertInto('audit_segment_records').values({ segment_id: 'aus_earlier1', record_id: 'earlierRecord1', last_at: earlier.at }).execute();
    expect(await trailOf('earlierRecord1')).toEqual([earlier]);
  });

  it('is append-only: an UPDATE of either table is refused', async () => {
    await createPatient(t, acme.sandbox_api_key);
    await t.app.services.audit.flush();
    const db = t.database.handle.db;
    await expect(db.updateTable('audit_segments').set({ events: '' }).execute()).rejects.toThrow(/append-only/);
    await expect(sql`update audit_segment_records set record_id = 'x'`.execute(db)).rejects.toThrow(/append-only/);
  });

  it('pnpm admin audit filters the trail; staff actions are in it under the system user', async () => {
    const key = acme.production_api_key;
    const patient = await createPatient(t, key);
    const received = await admin('prescription', 'receive', '--customer', acme.customer_id, '--environment', 'production', '--patient', patient, '--json', '{"medication_name":"Amoxicillin 500 mg"}');
    await t.app.services.audit.flush();

    const all = await admin('audit', '--record', patient);
    expect(all.events.map((e: AuditEventView) => e.operation)).toEqual(['admin prescription receive', 'createPatient']);
    const staff = all.events[0];
    expect(staff).toMatchObject({ actor_type: 'staff', action: 'write', status: 200, customer_id: acme.customer_id, environment: 'production' });
    expect(staff.actor_id).toBeTruthy();
    expect(staff.record_ids).toEqual(expect.arrayContaining([patient, received.prescription_token]));

    const reads = await admin('audit', '--record', patient, '--operation', 'createPatient', '--actor', keyId(key), '--since', '2000-01-01');
    expect(reads.events).toHaveLength(1);
    expect((await admin('audit', '--record', patient, '--until', '2000-01-01')).events).toEqual([]);
    expect((await admin('audit', '--customer', globex.customer_id, '--environment', 'sandbox', '--limit', '1')).events.length).toBeLessThanOrEqual(1);
    await expect(admin('audit', '--since', 'yesterday')).rejects.toMatchObject({ code: 2 });
    await expect(admin('audit', '--limit', '0')).rejects.toMatchObject({ code: 2 });
  });

  it('keeps events for the retention, then deletes them with their record ids', async () => {
    const patient = await createPatient(t, globex.sandbox_api_key);
    await t.app.services.audit.flush();
    expect(await t.app.services.audit.prune()).toBe(0);
    const sixYearsAndADay = (2190 + 1) * 86_400_000;
    expect(await t.app.services.audit.prune(Date.now() + sixYearsAndADay)).toBeGreaterThan(0);
    expect(await trailOf(patient)).toEqual([]);
    const left = await t.database.handle.db.selectFrom('audit_segment_records').select('record_id').where('record_id', '=', patient).execute();
    expect(left).toEqual([]);
  });
});

async function countEvents(): Promise<number> {
  const row = await t.database.handle.db
    .selectFrom('audit_segments')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('event_count'), eb.lit(0)).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
