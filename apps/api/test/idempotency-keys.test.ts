// Idempotency-Key: a retried create or action happens at most once; its first answer is
// stored with its writes and replayed for 24 hours; misuse answers 409 or 422.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../src/http/idempotency.js';
import { routes } from '../src/generated/routes.js';
import { createPatient, destination, insertPrescription, type PatientSuite, startTestAppWithPatient } from './support/fixtures.js';
import { directTransferBody } from './support/lifecycle-fixtures.js';
import type { RawResponse } from './support/test-app.js';
import { fromPharmacy } from './support/transfer-request-steps.js';

let { t, acme, globex, patient } = {} as PatientSuite;
beforeAll(async () => ({ t, acme, globex, patient } = await startTestAppWithPatient()));
afterAll(async () => t?.close());

let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;
const db = () => t.database.handle.db;

function post(path: string, body: unknown, apiKey: string, idempotencyKey?: string): Promise<RawResponse> {
  return t.raw('POST', path, {
    headers: {
      authorization: `ApiKey ${apiKey}`,
      'content-type': 'application/json',
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    body: JSON.stringify(body),
  });
}

const transferOf = (p = patient) => ({ patient_token: p, ...fromPharmacy });
const transfersOf = async (p: string) => (await db().selectFrom('transfer_requests').select('token').where('patient_token', '=', p).execute()).length;

describe('a retried request with the same key', () => {
  it('answers the first answer again, marked as replayed, and writes nothing more', async () => {
    const own = await createPatient(t, acme.sandbox_api_key);
    const key = newKey();
    const first = await post('/v1/transfer_request', transferOf(own), acme.sandbox_api_key, key);
    const retry = await post('/v1/transfer_request', transferOf(own), acme.sandbox_api_key, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json).toEqual(first.json);
    expect(await transfersOf(own)).toBe(1);
    const steps = await db().selectFrom('sandbox_steps').select('id').where('subject_token', '=', first.json.request_id).execute();
    expect(steps).toHaveLength(1);
  });

  it('fills a prescription once: the retried fill request neither fills again nor opens a second request', async () => {
    const own = await createPatient(t, acme.sandbox_api_key);
    const rx = await insertPrescription(t, { customer_id: acme.customer_id, patient_token: own }, {});
    const body = { patient_token: own, patient_payment_type: 'cash', medications: [{ prescription_token: rx.token }], ...destination };
    const key = newKey();
    const answers = [await post('/v1/fill_request', body, acme.sandbox_api_key, key), await post('/v1/fill_request', body, acme.sandbox_api_key, key)];
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers[1]!.json).toEqual(answers[0]!.json);
    const requests = await db().selectFrom('fill_requests').select('token').where('patient_token', '=', own).execute();
    expect(requests).toEqual([{ token: answers[0]!.json.request_id }]);
    const read = await db().selectFrom('prescriptions').select(['quantity_remaining', 'date_filled_utc']).where('token', '=', rx.token).executeTakeFirstOrThrow();
    expect(read.quantity_remaining).toBe(rx.quantity_remaining - 30);
  });

  it('answers a webhook endpoint change once, its secret included (stored sealed, never in clear)', async () => {
    const customer = await t.customer();
    const key = newKey();
    const put = () =>
      t.raw('PUT', '/v1/webhook_endpoint', {
        headers: { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ url: 'https://hooks.example.com/pharmacy' }),
      });
    const first = await put();
    const retry = await put();
    expect(first.status).toBe(200);
    expect(first.json.secret).toMatch(/^whsec_/);
    expect(retry.json).toEqual(first.json);
    const stored = await db().selectFrom('idempotency_keys').select('response_body').where('key', '=', key).executeTakeFirstOrThrow();
    expect(stored.response_body).not.toContain(first.json.secret);
    expect(stored.response_body).not.toContain('hooks.example.com');
  });

  it('is answered from the record stored with the writes, in the same transaction', async () => {
    const own = await createPatient(t, acme.sandbox_api_key);
    const key = newKey();
    const first = await post('/v1/transfer_request', transferOf(own), acme.sandbox_api_key, key);
    const row = await db().selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ scope: `${acme.customer_id}/sandbox`, operation_id: 'createTransferRequest', state: 'completed', response_status: 201, locked_until: null });
    expect(row.request_id).toBe(first.headers.get('x-request-id'));

    // When the answer cannot be stored, the request's writes are rolled back with it.
    const other = await createPatient(t, acme.sandbox_api_key);
    const idempotency = t.app.services.idempotency;
    const complete = idempotency.complete.bind(idempotency);
    idempotency.complete = async () => {
      throw new Error('simulated failure storing the answer');
    };
    const failed = await post('/v1/transfer_request', transferOf(other), acme.sandbox_api_key, 'stored-with-the-writes');
    idempotency.complete = complete;
    expect(failed.status).toBe(500);
    expect(await transfersOf(other)).toBe(0);
    // Nothing was remembered: the retry is processed afresh, once.
    const retry = await post('/v1/transfer_request', transferOf(other), acme.sandbox_api_key, 'stored-with-the-writes');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await transfersOf(other)).toBe(1);
  });
});

describe('a key sent again with something else', () => {
  it.each([
    ['another body', () => post('/v1/transfer_request', { ...transferOf(), notes: 'Another note.' }, acme.sandbox_api_key, 'reused-key')],
    ['another operation', () => post('/v1/direct_transfer', directTransferBody(patient), acme.sandbox_api_key, 'reused-key')],
  ])('answers 422 for %s', async (_what, again) => {
    if (!(await db().selectFrom('idempotency_keys').select('key').where('key', '=', 'reused-key').executeTakeFirst())) {
      expect((await post('/v1/transfer_request', transferOf(), acme.sandbox_api_key, 'reused-key')).status).toBe(201);
    }
    const answer = await again();
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({ statusCode: 422, error: 'Unprocessable Entity', message: 'This Idempotency-Key was used with another operation or body.' });
  });

  it('answers 409 while the first request with the key is still in flight, and takes over a key whose request died', async () => {
    const own = await createPatient(t, acme.sandbox_api_key);
    const body = transferOf(own);
    const row = (lockedUntil: string, key: string) => ({
      scope: `${acme.customer_id}/sandbox`,
      key,
      operation_id: 'createTransferRequest',
      fingerprint: fingerprintOf('createTransferRequest', { path: {}, query: {}, body }),
      state: 'in_flight' as const,
      locked_until: lockedUntil,
      response_status: null,
      response_body: null,
      response_type: null,
      request_id: 'req_elsewhere',
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await db().insertInto('idempotency_keys').values(row(new Date(Date.now() + 60_000).toISOString(), 'in-flight')).execute();
    const busy = await post('/v1/transfer_request', body, acme.sandbox_api_key, 'in-flight');
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ statusCode: 409, error: 'Conflict' });
    expect(await transfersOf(own)).toBe(0);

    await db().insertInto('idempotency_keys').values(row(new Date(Date.now() - 1000).toISOString(), 'died')).execute();
    const takenOver = await post('/v1/transfer_request', body, acme.sandbox_api_key, 'died');
    expect(takenOver.status).toBe(201);
    expect(await transfersOf(own)).toBe(1);
  });

  it('is processed afresh once its answer is older than 24 hours', async () => {
    const own = await createPatient(t, acme.sandbox_api_key);
    const key = newKey();
    await post('/v1/transfer_request', transferOf(own), acme.sandbox_api_key, key);
    await db().updateTable('idempotency_keys').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('key', '=', key).execute();
    const later = await post('/v1/transfer_request', transferOf(own), acme.sandbox_api_key, key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await transfersOf(own)).toBe(2);
    // The pruning worker forgets expired keys.
    await db().updateTable('idempotency_keys').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('key', '=', key).execute();
    expect(await t.app.services.idempotency.prune()).toBeGreaterThanOrEqual(1);
    expect(await db().selectFrom('idempotency_keys').select('key').where('key', '=', key).execute()).toEqual([]);
  });
});

describe('keys belong to the caller', () => {
  it('the same key of another customer or of the other environment is another key', async () => {
    const key = newKey();
    const theirs = await createPatient(t, globex.sandbox_api_key);
    const production = await createPatient(t, acme.production_api_key);
    const answers = [
      await post('/v1/transfer_request', transferOf(), acme.sandbox_api_key, key),
      await post('/v1/transfer_request', transferOf(theirs), globex.sandbox_api_key, key),
      await post('/v1/transfer_request', transferOf(production), acme.production_api_key, key),
    ];
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.json.request_id)).size).toBe(3);
    expect(answers.every((a) => a.headers.get('idempotent-replayed') === null)).toBe(true);
  });

  it('concurrent requests with one key create one record; the others are answered 409 or the same answer', async () => {
    const own = await createPatient(t, acme.sandbox_api_key);
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post('/v1/transfer_request', transferOf(own), acme.sandbox_api_key, key)));
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.json.request_id)).size).toBe(1);
    expect(await transfersOf(own)).toBe(1);
  });
});

describe('the header', () => {
  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space', 'two words'],
  ])('is refused when %s', async (_what, key) => {
    const answer = await post('/v1/transfer_request', transferOf(), acme.sandbox_api_key, key);
    expect(answer.status).toBe(400);
    expect(answer.json.validation_errors).toEqual([expect.objectContaining({ key: 'Idempotency-Key' })]);
  });

  it('a failed request stores nothing: the same key is processed afresh', async () => {
    const key = newKey();
    const unknownPatient = { ...fromPharmacy, patient_token: 'patUnknown123' };
    expect((await post('/v1/transfer_request', unknownPatient, acme.sandbox_api_key, key)).status).toBe(404);
    expect((await post('/v1/transfer_request', unknownPatient, acme.sandbox_api_key, key)).status).toBe(404);
    expect(await db().selectFrom('idempotency_keys').select('key').where('key', '=', key).execute()).toEqual([]);
  });

  it('is declared by the operations that create or act, and not by those safe to repeat', () => {
    const declaring = routes.filter((r) => Object.hasOwn((r.headers?.properties as object) ?? {}, 'Idempotency-Key')).map((r) => r.operationId);
    expect(declaring).toEqual(
      expect.arrayContaining(['createTransferRequest', 'createDirectTransfer', 'createFillRequest', 'receiveSandboxElectronicPrescription', 'setWebhookEndpoint', 'rotateWebhookEndpointSecret']),
    );
    // A patient is created once per identity and an update is the same state however often it is sent.
    expect(declaring).not.toEqual(expect.arrayContaining(['createPatient']));
    expect(declaring).not.toContain('updatePatient');
    expect(declaring).not.toContain('testWebhookEndpoint');
  });

  it('is ignored by an operation that does not declare it', async () => {
    const key = newKey();
    const answer = await t.raw('PUT', '/v1/patient', {
      headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ first_name: 'Ida', last_name: 'Key', dob: '19700101', gender: 'female' }),
    });
    expect(answer.status).toBe(201);
    expect(await db().selectFrom('idempotency_keys').select('key').where('key', '=', key).execute()).toEqual([]);
  });
});
