import { createHash, createHmac } from 'node:crypto';
import type { MediaS3Config } from '../config.js';
import type { MediaStore } from './media-store.js';

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding of one path segment, as SigV4 canonical URIs want it. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * An S3-compatible bucket (MEDIA_STORE=s3): plain `fetch` with AWS Signature Version 4
 * headers, path-style addressing (`{endpoint}/{bucket}/{key}`), which AWS S3, MinIO, Ceph,
 * R2 and s3rver all accept. Objects are private; the service reads them back itself.
 */
export class S3MediaStore implements MediaStore {
  constructor(
    private readonly config: MediaS3Config,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const response = await this.send('PUT', key, bytes, { 'content-type': contentType });
    if (!response.ok) throw new Error(`S3 PUT ${key} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  }

  async get(key: string): Promise<Buffer | undefined> {
    const response = await this.send('GET', key);
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) throw new Error(`S3 GET ${key} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    return Buffer.from(await response.arrayBuffer());
  }

  async delete(key: string): Promise<void> {
    const response = await this.send('DELETE', key);
    await response.body?.cancel();
    if (!response.ok && response.status !== 404) throw new Error(`S3 DELETE ${key} answered ${response.status}`);
  }

  /** One request, signed with SigV4 in its headers (the payload's hash signed too). */
  private send(method: string, key: string, body?: Buffer, extra: Record<string, string> = {}, at = new Date()): Promise<Response> {
    const { endpoint, bucket, region, accessKeyId, secretAccessKey } = this.config;
    const url = new URL(endpoint);
    const basePath = url.pathname.replace(/\/+$/, '');
    const path = `${basePath}/${encodeSegment(bucket)}/${key.split('/').map(encodeSegment).join('/')}`;
    const payloadHash = sha256Hex(body ?? '');
    const headers: Record<string, string> = { 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDateOf(at), ...extra };
    const authorization = sigV4Authorization({ method, path, headers: { host: url.host, ...headers }, payloadHash, region, service: 's3', accessKeyId, secretAccessKey });
    return this.fetchImpl(`${url.origin}${path}`, { method, headers: { ...headers, authorization }, ...(body ? { body } : {}) });
  }
}

/** `20130524T000000Z`: the time as SigV4 writes it. */
export function amzDateOf(at: Date): string {
  return at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * The `Authorization` header of an AWS Signature Version 4 request with no query string:
 * every header given is signed (`host` and `x-amz-date` among them).
 */
export function sigV4Authorization(request: {
  method: string;
  path: string;
  headers: Record<string, string>;
  payloadHash: string;
  region: string;
  service: string;
  accessKeyId: string;
  secretAccessKey: string;
}): string {
  const lower = Object.fromEntries(Object.entries(request.headers).map(([n, v]) => [n.toLowerCase(), v.trim().replace(/ +/g, ' ')]));
  const amzDate = lower['x-amz-date'];
  if (!amzDate) throw new Error('x-amz-date must be signed');
  const names = Object.keys(lower).sort();
  const canonicalHeaders = names.map((n) => `${n}:${lower[n]}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [request.method, request.path, '', canonicalHeaders, signedHeaders, request.payloadHash].join('\n');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${request.secretAccessKey}`, day), request.region), request.service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${request.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
