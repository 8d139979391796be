/**
 * An in-process fake of the platform, played by a `fetch` function: the token endpoint and a
 * few bearer-token operations. Its answers are checked against the spec (validateResponse),
 * so the tests cannot pass against shapes the real service would not send.
 */
import { validateResponse } from '@pharmacy/contract/testing';

export const ORIGIN = 'https://platform.test';
export const credentials = {
  clientId: 'cli_4Nf8Rk2Wq7',
  clientSecret: 'cs_Z3v9Xq1Lm8Tp6Hr4Jd2K',
  audience: 'https://api.pharmacy.example.com',
} as const;

/** The n-th token issued (1-based), shaped as the JWT the spec requires; the middle part names it. */
export const tokenNo = (n: number) => `eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCJ9.at_${n}.c2lnbmF0dXJl`;
export const bearerNo = (n: number) => `Bearer ${tokenNo(n)}`;

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Skips the spec check, for answers a broken server or proxy would give. */
  offSpec?: boolean;
}

export interface FakePlatformOptions {
  /** `expires_in` of the tokens issued. */
  expiresIn?: number;
  /** What the n-th exchange (0-based) answers instead of issuing a token; `undefined` issues one. */
  exchange?: (n: number) => Answer | undefined;
  /** What the n-th API call (0-based) answers before its token is checked; `undefined` goes on. */
  api?: (n: number) => Answer | undefined;
  /** What the n-th API call (0-based) waits for before it is answered, to order answers. */
  apiWait?: (n: number) => Promise<unknown> | undefined;
  /** Runs while an exchange is answered (after it was sent), e.g. to move the clock. */
  whileExchanging?: () => void;
}

export interface Call {
  method: string;
  path: string;
  authorization: string | null;
  body: string;
}

export function fakePlatform(options: FakePlatformOptions = {}) {
  const exchanges: Record<string, unknown>[] = [];
  const calls: Call[] = [];
  const valid = new Set<string>();

  async function answer(request: Request): Promise<Answer> {
    const path = new URL(request.url).pathname;
    const text = await request.text();
    if (request.method === 'POST' && path === '/oauth/token') {
      const n = exchanges.push(JSON.parse(text)) - 1;
      // A turn of the event loop, so that concurrent callers really overlap the exchange.
      await new Promise((resume) => setTimeout(resume, 1));
      options.whileExchanging?.();
      const scripted = options.exchange?.(n);
      if (scripted) return scripted;
      if (exchanges[n]!.client_secret !== credentials.clientSecret) {
        return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } };
      }
      const token = tokenNo(n + 1);
      valid.add(token);
      const scope = exchanges[n]!.scope ?? 'accounts:delete diagnostics:read';
      return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: options.expiresIn ?? 3600, scope } };
    }

    const n = calls.push({ method: request.method, path, authorization: request.headers.get('authorization'), body: text }) - 1;
    await options.apiWait?.(n);
    const scripted = options.api?.(n);
    if (scripted) return scripted;
    const token = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1];
    if (!token || !valid.has(token)) {
      const body = { statusCode: 401, error: 'Unauthorized', message: 'Authorization missing or invalid' };
      return { status: 401, body, headers: { 'www-authenticate': 'Bearer realm="pharmacy", error="invalid_token"' } };
    }
    if (request.method === 'DELETE' && /^\/accounts\/[^/]+$/.test(path)) return { status: 204 };
    if (request.method === 'GET' && path === '/diagnostics/v0/kits') return { status: 200, body: [kit] };
    if (request.method === 'POST' && /^\/accounts\/[^/]+\/consents$/.test(path)) {
      const { type } = JSON.parse(text) as { type: string };
      return { status: 201, body: { id: 'cns_2Hq8', type, accountId: path.split('/')[2], createdAt: '2026-01-05T10:00:00.000Z' } };
    }
    return { status: 404, body: { statusCode: 404, error: 'Not Found', message: 'Not Found' } };
  }

  return {
    exchanges,
    calls,
    /** Makes every token issued so far invalid, as a revocation or a key rotation would. */
    revokeTokens: () => valid.clear(),
    fetch: async (request: Request): Promise<Response> => {
      const { status, body, headers, offSpec } = await answer(request);
      const contentType = body === undefined ? null : typeof body === 'string' ? 'text/html' : 'application/json; charset=utf-8';
      const problems = offSpec ? [] : validateResponse({ method: request.method, url: request.url, status, contentType, body });
      if (problems.length > 0) throw new Error(`fake platform breaks the spec: ${JSON.stringify(problems)}`);
      return new Response(body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body), {
        status,
        headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
      });
    },
  };
}

const kit = {
  id: '3f1c9a52-7b4e-4d2a-9c61-0e8f5a2b7d13',
  sku: 'KIT-BLD-FP-01',
  name: 'Finger-prick blood kit',
  description: null,
  sample_type: 'blood',
  test_ids: ['8a2d4f6b-1c3e-4a5b-9d7f-2e4c6a8b0d1f'],
};
