import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3MediaStore, sigV4Authorization } from '../src/media/s3-media-store.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The S3-compatible store against s3rver (a local S3 implementation): signed requests
 * (AWS Signature Version 4) to put, get and delete objects, and a whole upload through the
 * app configured with MEDIA_STORE=s3. s3rver checks signatures with its own credentials
 * (S3RVER / S3RVER).
 */
let server: S3rver;
let dir: string;
let endpoint: string;
const s3 = () => ({ endpoint, bucket: 'media', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'media' }] });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the S3 media store', () => {
  it('puts, gets and deletes objects with signed requests', async () => {
    const store = new S3MediaStore(s3());
    const key = randomUUID();
    const bytes = randomBytes(5000);
    expect(await store.get(key)).toBeUndefined();
    await store.put(key, bytes, 'application/octet-stream');
    expect((await store.get(key))!.equals(bytes)).toBe(true);
    await store.delete(key);
    expect(await store.get(key)).toBeUndefined();
  });

  it('fails on an answer other than 2xx (an unknown access key: 403)', async () => {
    const store = new S3MediaStore({ ...s3(), accessKeyId: 'UNKNOWN' });
    await expect(store.put(randomUUID(), Buffer.from('x'), 'application/octet-stream')).rejects.toThrow(/answered 403/);
    await expect(store.get(randomUUID())).rejects.toThrow(/answered 403/);
  });

  // s3rver does not check Signature Version 4 signatures (it accepts any), so the signing
  // is checked against the example of the S3 documentation ("Example: GET Object",
  // Authenticating Requests: Using the Authorization Header).
  it('signs as the S3 documentation example does', () => {
    const authorization = sigV4Authorization({
      method: 'GET',
      path: '/test.txt',
      headers: {
        Host: 'examplebucket.s3.amazonaws.com',
        Range: 'bytes=0-9',
        'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        'x-amz-date': '20130524T000000Z',
      },
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      region: 'us-east-1',
      service: 's3',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  describe('behind the app (MEDIA_STORE=s3)', () => {
    let t: TestApp;
    let acme: NewCustomer;
    beforeAll(async () => {
      t = await startTestApp({
        MEDIA_STORE: 's3',
        MEDIA_S3_ENDPOINT: endpoint,
        MEDIA_S3_BUCKET: 'media',
        MEDIA_S3_ACCESS_KEY_ID: 'S3RVER',
        MEDIA_S3_SECRET_ACCESS_KEY: 'S3RVER',
        MEDIA_SIGNING_KEY: randomBytes(32).toString('base64'),
      });
      acme = await t.customer('Acme');
    });
    afterAll(async () => t?.close());

    it('uploads to the bucket and reads back from it', async () => {
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(300)]);
      const { data } = await t.client(acme.sandbox_api_key).POST('/v2/media', { body: { name: 'card.png' } });
      const upload = new URL(data!.upload_url);
      const put = await fetch(`${t.baseUrl}${upload.pathname}${upload.search}`, { method: 'PUT', body: png, headers: { 'content-type': 'image/png' } });
      expect(put.status).toBe(204);
      expect((await new S3MediaStore(s3()).get(data!.id))!.equals(png)).toBe(true);
      const v2 = await t.client(acme.sandbox_api_key).GET('/v2/media/{id}', { params: { path: { id: data!.id } } });
      expect(v2.data!.status).toBe('AVAILABLE');
      const url = new URL(v2.data!.url);
      const read = await fetch(`${t.baseUrl}${url.pathname}${url.search}`);
      expect(read.status).toBe(200);
      expect(Buffer.from(await read.arrayBuffer()).equals(png)).toBe(true);
    });
  });
});
