import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPharmacyClient } from '../src/index.js';

/** What the server answers to the n-th request (0-based): a status, or 'cut' (the connection is destroyed, no answer). */
let script: (n: number) => number | 'cut' = () => 201;
let seen: { method: string; key: string | undefined }[] = [];
let server: Server;
let origin: string;
const receipt = { request_id: 'tr_1', timestamp: '2026-01-05T10:00:00.000Z', status: 'success', details: {} };

beforeAll(async () => {
  server = createServer(async (req, res) => {
    for await (const _chunk of req);
    const answer = script(seen.length);
    seen.push({ method: req.method!, key: req.headers['idempotency-key'] as string | undefined });
    if (answer === 'cut') return req.socket.destroy();
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (answer === 429 || answer === 503) headers['retry-after'] = '0';
    res.writeHead(answer, headers).end(JSON.stringify(answer < 300 ? receipt : { statusCode: answer, error: 'Error', message: 'Try again.' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));
beforeEach(() => {
  seen = [];
});

const transfer = { patient_token: 'p7Xk2mQ9rT4vW8yZ1aB3cD5e', pharmacy_name: 'Corner Drug Store', pharmacy_phone: '4155550142' };
const api = (retry?: { retries?: number; minDelayMs?: number } | false) =>
  createPharmacyClient({ baseUrl: origin, apiKey: 'sk_test_1', retry: retry === undefined ? { minDelayMs: 1 } : retry });
const post = (client = api()) => client.POST('/v1/transfer_request', { body: transfer as never });

describe('retries', () => {
  it.each([
    ['the connection was cut before an answer', 'cut'],
    ['the key was still in flight (409)', 409],
    ['it was rate limited (429, Retry-After)', 429],
    ['the server was unavailable (503)', 503],
  ] as const)('send a POST again with the same Idempotency-Key when %s', async (_what, first) => {
    script = (n) => (n === 0 ? first : 201);
    const { response } = await post();
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(2);
    expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.key).toBe(seen[0]!.key);
  });

  it('give every new POST a key of its own, and keep a key the call sets', async () => {
    script = () => 201;
    await post();
    await post();
    await api().POST('/v1/transfer_request', { body: transfer as never, params: { header: { 'Idempotency-Key': 'my-key' } } });
    expect(seen.map((s) => s.key)).toEqual([expect.any(String), expect.any(String), 'my-key']);
    expect(seen[0]!.key).not.toBe(seen[1]!.key);
  });

  it('stop after the configured attempts and answer the last one', async () => {
    script = () => 503;
    const { response } = await post(api({ retries: 2, minDelayMs: 1 }));
    expect(response.status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('do not repeat an answer that is final, nor anything when turned off', async () => {
    script = () => 400;
    expect((await post()).response.status).toBe(400);
    expect(seen).toHaveLength(1);
    script = (n) => (n === 1 ? 503 : 201);
    expect((await post(api(false))).response.status).toBe(503);
    expect(seen).toHaveLength(2);
  });

  it('repeat reads, which carry no key', async () => {
    script = (n) => (n === 0 ? 503 : 200);
    const { response } = await api().GET('/v1/transfer_request', {});
    expect(response.status).toBe(200);
    expect(seen.map((s) => [s.method, s.key])).toEqual([
      ['GET', undefined],
      ['GET', undefined],
    ]);
  });
});
