import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateResponse } from '@pharmacy/contract/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { loadMediaSigningKey } from '../src/crypto/media-signing-key.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { sniffContentType } from '../src/media/media-check.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const MAX_BYTES = 64 * 1024;
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(100)]);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
let mediaDir: string;

beforeAll(async () => {
  mediaDir = mkdtempSync(join(tmpdir(), 'media-test-'));
  t = await startTestApp({ MEDIA_DIR: mediaDir, MEDIA_MAX_BYTES: String(MAX_BYTES), MEDIA_SIGNING_KEY: randomBytes(32).toString('base64') });
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
});
afterAll(async () => {
  await t?.close();
  rmSync(mediaDir, { recursive: true, force: true });
});
afterEach(() => {
  resetClock();
  t.app.services.media.scanner = async () => ({ clean: true });
});

/** A request to a signed address (no API key), its answer checked against the spec. */
async function signed(method: 'GET' | 'PUT', address: string, body?: Buffer, contentType = 'application/octet-stream') {
  const url = new URL(address);
  const response = await fetch(`${t.baseUrl}${url.pathname}${url.search}`, { method, ...(body ? { body, headers: { 'content-type': contentType } } : {}) });
  const bytes = Buffer.from(await response.arrayBuffer());
  const type = response.headers.get('content-type');
  const json = type?.includes('json') && bytes.length ? JSON.parse(bytes.toString()) : undefined;
  const problems = validateResponse({ method, url: url.pathname + url.search, status: response.status, contentType: type, body: json ?? bytes.toString('latin1') });
  expect(problems.map((p) => p.message)).toEqual([]);
  return { status: response.status, type, bytes, json };
}

async function createV1(key = acme.sandbox_api_key, title?: string) {
  const id = randomUUID();
  const { data, response } = await t.client(key).POST('/v1/media', { body: { fileName: id, ...(title ? { title } : {}) } });
  expect(response.status).toBe(200);
  return data!;
}

async function createV2(name = 'insurance-card-front.png', key = acme.sandbox_api_key) {
  const { data, response } = await t.client(key).POST('/v2/media', { body: { name } });
  expect(response.status).toBe(200);
  return data!;
}

async function metadata(id: string, key = acme.sandbox_api_key) {
  return t.client(key).GET('/v1/media/{id}', { params: { path: { id } } });
}

async function writeAddress(id: string, key = acme.sandbox_api_key) {
  return t.client(key).GET('/v1/media/{id}/signed-url/write', { params: { path: { id } } });
}

async function readAddress(id: string, key = acme.sandbox_api_key) {
  return t.client(key).GET('/v1/media/{id}/signed-url/read', { params: { path: { id } } });
}

async function fileEvents(id: string) {
  const rows = await t.database.handle.db.selectFrom('events').select(['payload', 'customer_id', 'environment']).where('callback_type', '=', 'FILE').execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) })).filter((r) => r.payload.details.file_id === id);
}

describe('media: creating (real request bodies)', () => {
  it('POST /v1/media takes {fileName, title} and answers the real record, awaiting its upload', async () => {
    const id = randomUUID();
    const { data, response } = await t.client(acme.sandbox_api_key).POST('/v1/media', { body: { fileName: id, title: 'Insurance card, front' } });
    expect(response.status).toBe(200);
    expect(data).toEqual({ id, createdAt: expect.any(String), updatedAt: expect.any(String), title: 'Insurance card, front', status: 'AWAITING_UPLOADING' });
    const read = await metadata(id);
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(data);
  });

  it('POST /v1/media takes a form body too, and a fileName used already answers 422', async () => {
    const id = randomUUID();
    const form = await t.raw('POST', '/v1/media', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'application/x-www-form-urlencoded' }, body: `fileName=${id}` });
    expect(form.status).toBe(200);
    expect(form.json).toMatchObject({ id, title: null, status: 'AWAITING_UPLOADING' });
    const again = await t.client(acme.sandbox_api_key).POST('/v1/media', { body: { fileName: id } });
    expect(again.response.status).toBe(422);
    expect(again.error).toMatchObject({ statusCode: 422, message: 'File with this name already exists' });
  });

  it('POST /v1/media refuses a fileName that is not a version-4 UUID', async () => {
    const { response } = await t.client(acme.sandbox_api_key).POST('/v1/media', { body: { fileName: 'card.png' } });
    expect(response.status).toBe(400);
  });

  it('POST /v2/media takes {name} and answers {id, name, status, upload_url}', async () => {
    const data = await createV2('card.png');
    expect(data).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'card.png', status: 'AWAITING_UPLOADING', upload_url: expect.stringContaining(`/v1/media/${data.id}/content?purpose=write&`) });
    const v2 = await t.client(acme.sandbox_api_key).GET('/v2/media/{id}', { params: { path: { id: data.id } } });
    expect(v2.data).toEqual({ id: data.id, name: 'card.png', status: 'AWAITING_UPLOADING', url: expect.stringContaining('purpose=read') });
  });
});

describe('media: safe retries', () => {
  it('POST /v2/media with an Idempotency-Key creates one file and replays its answer', async () => {
    const key = randomUUID();
    const client = t.client(acme.sandbox_api_key);
    const first = await client.POST('/v2/media', { body: { name: 'retried.pdf' }, params: { header: { 'Idempotency-Key': key } } });
    const again = await client.POST('/v2/media', { body: { name: 'retried.pdf' }, params: { header: { 'Idempotency-Key': key } } });
    expect(first.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
    const rows = await t.database.handle.db.selectFrom('media').select('id').where('name', '=', 'retried.pdf').execute();
    expect(rows).toHaveLength(1);
  });
});

describe('media: uploading and reading through signed addresses', () => {
  it('a v2 upload becomes AVAILABLE, records a FILE event, and reads back through the v2 url', async () => {
    const created = await createV2();
    const put = await signed('PUT', created.upload_url, PNG, 'image/png');
    expect(put.status).toBe(204);
    const meta = await metadata(created.id);
    expect(meta.data).toMatchObject({ id: created.id, status: 'AVAILABLE', title: null });
    const events = await fileEvents(created.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ customer_id: acme.customer_id, environment: 'sandbox' });
    expect(events[0]!.payload).toEqual({
      callback_type: 'FILE',
      details: { file_id: created.id, patient_token: null, prescription_token: null, content_type: 'image/png', message: expect.any(String) },
      timestamp: expect.any(Number),
    });
    const v2 = await t.client(acme.sandbox_api_key).GET('/v2/media/{id}', { params: { path: { id: created.id } } });
    expect(v2.data!.status).toBe('AVAILABLE');
    const read = await signed('GET', v2.data!.url);
    expect(read.status).toBe(200);
    expect(read.type).toBe('image/png');
    expect(read.bytes.equals(PNG)).toBe(true);
    expect(readdirSync(mediaDir)).toContain(created.id);
  });

  it('a v1 file uploads through its signed write address and reads through its signed read address (bare strings)', async () => {
    const created = await createV1(acme.sandbox_api_key, 'Prescription');
    expect((await readAddress(created.id)).response.status).toBe(403); // not uploaded yet
    const write = await writeAddress(created.id);
    expect(write.response.status).toBe(200);
    expect(typeof write.data).toBe('string');
    expect(write.response.headers.get('content-type')).toContain('application/json');
    expect((await signed('PUT', write.data!, PDF, 'application/pdf')).status).toBe(204);
    const read = await readAddress(created.id);
    expect(read.response.status).toBe(200);
    expect(read.data).toContain('purpose=read');
    const got = await signed('GET', read.data!);
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/pdf');
    expect(got.bytes.equals(PDF)).toBe(true);
    // Uploaded once: no second write address, no second upload.
    expect((await writeAddress(created.id)).response.status).toBe(403);
    const second = await signed('PUT', write.data!, JPEG, 'image/jpeg');
    expect(second.status).toBe(403);
  });

  it('bytes that are not PNG, JPEG or PDF are quarantined whatever type was claimed, with no FILE event and no reads', async () => {
    const created = await createV2('fake.png');
    const put = await signed('PUT', created.upload_url, Buffer.from('<html><script>alert(1)</script></html>'), 'image/png');
    expect(put.status).toBe(204);
    expect((await metadata(created.id)).data!.status).toBe('QUARANTINE');
    expect(await fileEvents(created.id)).toEqual([]);
    expect((await readAddress(created.id)).response.status).toBe(403);
    const v2 = await t.client(acme.sandbox_api_key).GET('/v2/media/{id}', { params: { path: { id: created.id } } });
    expect(v2.data!.status).toBe('QUARANTINE');
    const read = await signed('GET', v2.data!.url);
    expect(read.status).toBe(403);
    expect(read.json).toMatchObject({ message: 'This file cannot be downloaded' });
  });

  it('a file the scanner does not find clean is quarantined', async () => {
    t.app.services.media.scanner = async () => ({ clean: false, reason: 'EICAR test signature' });
    const created = await createV2();
    expect((await signed('PUT', created.upload_url, JPEG, 'image/jpeg')).status).toBe(204);
    expect((await metadata(created.id)).data!.status).toBe('QUARANTINE');
  });

  it('a body over MEDIA_MAX_BYTES is refused (413) and the file still awaits its upload', async () => {
    const created = await createV2();
    const put = await signed('PUT', created.upload_url, Buffer.concat([PNG, Buffer.alloc(MAX_BYTES)]), 'image/png');
    expect(put.status).toBe(413);
    expect((await metadata(created.id)).data!.status).toBe('AWAITING_UPLOADING');
    expect((await signed('PUT', created.upload_url, PNG, 'image/png')).status).toBe(204);
  });

  it('an upload sent as another content type is refused (415), and other operations still refuse upload types', async () => {
    const created = await createV2();
    const url = new URL(created.upload_url);
    const text = await t.raw('PUT', url.pathname + url.search, { headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    const patient = await t.raw('POST', '/v1/media', { headers: { authorization: `ApiKey ${acme.sandbox_api_key}`, 'content-type': 'image/png' }, body: 'x' });
    expect(patient.status).toBe(415);
    expect((await metadata(created.id)).data!.status).toBe('AWAITING_UPLOADING');
  });
});

describe('media: signed addresses refuse what they were not signed for', () => {
  it('an expired address is refused', async () => {
    const created = await createV2();
    advanceClock(24 * 3600 * 1000 + 1000);
    const put = await signed('PUT', created.upload_url, PNG, 'image/png');
    expect(put.status).toBe(403);
    expect(put.json).toMatchObject({ message: 'The signed address has expired.' });
    resetClock();
    expect((await signed('PUT', created.upload_url, PNG, 'image/png')).status).toBe(204);
    const read = (await readAddress(created.id)).data!;
    advanceClock(15 * 60 * 1000 + 1000);
    expect((await signed('GET', read)).status).toBe(403);
  });

  it('a changed signature, another file, another purpose or a later expiry is refused', async () => {
    const a = await createV2('a.png');
    const b = await createV2('b.png');
    const url = new URL(a.upload_url);
    const signature = url.searchParams.get('signature')!;
    const flipped = new URL(url);
    flipped.searchParams.set('signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1));
    expect((await signed('PUT', flipped.href, PNG, 'image/png')).status).toBe(403);
    const otherFile = new URL(url.href.replace(a.id, b.id));
    expect((await signed('PUT', otherFile.href, PNG, 'image/png')).status).toBe(403);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await signed('PUT', later.href, PNG, 'image/png')).status).toBe(403);
    // A write address is no read address, and the purpose cannot be changed.
    const asRead = new URL(url);
    asRead.searchParams.set('purpose', 'read');
    expect((await signed('GET', asRead.href)).status).toBe(403);
    expect((await signed('PUT', asRead.href, PNG, 'image/png')).status).toBe(403);
    expect((await metadata(a.id)).data!.status).toBe('AWAITING_UPLOADING');
    expect((await metadata(b.id)).data!.status).toBe('AWAITING_UPLOADING');
    // The untouched address still works.
    expect((await signed('PUT', a.upload_url, PNG, 'image/png')).status).toBe(204);
    const read = new URL((await readAddress(a.id)).data!);
    const readAsWrite = new URL(read);
    readAsWrite.searchParams.set('purpose', 'write');
    expect((await signed('PUT', readAsWrite.href, PNG, 'image/png')).status).toBe(403);
    expect((await signed('GET', read.href)).status).toBe(200);
  });
});

describe("media: another customer's files", () => {
  it('are invisible (404) to every operation, and the other environment does not see them either', async () => {
    const created = await createV2();
    const other = t.client(globex.sandbox_api_key);
    const params = { params: { path: { id: created.id } } };
    expect((await other.GET('/v1/media/{id}', params)).response.status).toBe(404);
    expect((await other.GET('/v2/media/{id}', params)).response.status).toBe(404);
    expect((await other.GET('/v1/media/{id}/signed-url/read', params)).response.status).toBe(404);
    expect((await other.GET('/v1/media/{id}/signed-url/write', params)).response.status).toBe(404);
    expect((await t.client(acme.production_api_key).GET('/v1/media/{id}', params)).response.status).toBe(404);
    const missing = await metadata(randomUUID());
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ message: 'Unable to find Media.' });
    // Its name is taken for everyone, though (422), revealing only that a UUID was used.
    expect((await other.POST('/v1/media', { body: { fileName: created.id } })).response.status).toBe(422);
  });
});

describe('media: parts', () => {
  it('types are found by their bytes', () => {
    expect(sniffContentType(PNG)).toBe('image/png');
    expect(sniffContentType(JPEG)).toBe('image/jpeg');
    expect(sniffContentType(PDF)).toBe('application/pdf');
    expect(sniffContentType(Buffer.from('GIF89a'))).toBeUndefined();
    expect(sniffContentType(Buffer.alloc(0))).toBeUndefined();
  });

  it('the signing key is MEDIA_SIGNING_KEY, a key file beside the embedded database, and required on PostgreSQL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-key-'));
    try {
      const embedded = loadConfig({ DATABASE_URL: join(dir, 'pharmacy.db') });
      const key = loadMediaSigningKey(embedded);
      expect(key).toHaveLength(32);
      expect(readdirSync(dir)).toContain('media-signing.key');
      expect(loadMediaSigningKey(embedded).equals(key)).toBe(true);
      expect(embedded.media.dir).toBe(join(dir, 'media'));
      expect(() => loadMediaSigningKey(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }))).toThrow(/MEDIA_SIGNING_KEY is required/);
      const given = randomBytes(32);
      expect(loadMediaSigningKey(loadConfig({ DATABASE_URL: 'postgres://x@h/db', MEDIA_SIGNING_KEY: given.toString('base64') })).equals(given)).toBe(true);
      expect(() => loadConfig({ MEDIA_STORE: 's3' })).toThrow(/MEDIA_S3_ENDPOINT is required/);
      expect(() => loadConfig({ MEDIA_SIGNING_KEY: 'short' })).toThrow(/MEDIA_SIGNING_KEY/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
