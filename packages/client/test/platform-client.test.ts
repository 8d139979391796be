import { contractMiddleware } from '@pharmacy/contract/testing';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  ClientCredentialsTokenProvider,
  createPlatformClient,
  environmentBaseUrls,
  OAuthError,
  type PharmacyClient,
  type PlatformClientOptions,
} from '../src/index.js';
import { bearerNo, credentials, fakePlatform, ORIGIN, type Answer } from './fake-platform.js';

type Platform = ReturnType<typeof fakePlatform>;
const START = Date.parse('2026-01-05T10:00:00.000Z');
const accountId = 'acc_9Lm2Qx7Rt4Vw8Yz1';

const connect = (platform: Platform, options: Partial<PlatformClientOptions> = {}) =>
  createPlatformClient({
    baseUrl: ORIGIN,
    ...credentials,
    fetch: platform.fetch,
    retry: { minDelayMs: 1 },
    middleware: [contractMiddleware()], // fails a test on any answer the spec does not document
    ...options,
  } as PlatformClientOptions);
const deleteAccount = (client: PharmacyClient) => client.DELETE('/accounts/{accountId}', { params: { path: { accountId } } });
const listKits = (client: PharmacyClient) => client.GET('/diagnostics/v0/kits');
const bearers = (platform: Platform) => platform.calls.map((call) => call.authorization);
const refused: Answer = { status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'Authorization missing or invalid' } };

beforeEach(() => {
  // Only Date is faked: the clock that decides expiry moves when a test says, timers run for real.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(START);
});
afterEach(() => vi.useRealTimers());

describe('an integrator with client credentials', () => {
  it('gets a token once and sends it with every request', async () => {
    const platform = fakePlatform();
    const client = connect(platform);
    expectTypeOf(client).toEqualTypeOf<PharmacyClient>();

    expect((await deleteAccount(client)).response.status).toBe(204);
    const kits = await listKits(client);
    expect(kits.data?.map((kit) => kit.name)).toEqual(['Finger-prick blood kit']);
    expect((await deleteAccount(client)).response.status).toBe(204);

    expect(platform.exchanges).toEqual([{ ...exchangeOf(credentials), grant_type: 'client_credentials' }]);
    expect(bearers(platform)).toEqual([bearerNo(1), bearerNo(1), bearerNo(1)]);
  });

  it.each([
    ['reuses an hour-long token until a minute before it expires', 3600, undefined, 0, 3539, 3541],
    ['reuses a one-minute token for half its life', 60, undefined, 0, 29, 31],
    ['reuses a token to its last second with no leeway', 3600, 0, 0, 3599, 3600],
    ['counts the lifetime from when the exchange was sent', 100, undefined, 10, 49, 51],
  ])('%s', async (_story, expiresIn, refreshLeewaySeconds, exchangeSeconds, reusedAt, renewedAt) => {
    const platform = fakePlatform({ expiresIn, whileExchanging: () => vi.setSystemTime(Date.now() + exchangeSeconds * 1000) });
    const client = connect(platform, { refreshLeewaySeconds });
    await listKits(client);
    vi.setSystemTime(START + reusedAt * 1000);
    await listKits(client);
    expect(platform.exchanges).toHaveLength(1);
    vi.setSystemTime(START + renewedAt * 1000);
    expect((await listKits(client)).response.status).toBe(200);
    expect(platform.exchanges).toHaveLength(2);
    expect(bearers(platform)).toEqual([bearerNo(1), bearerNo(1), bearerNo(2)]);
  });

  it('shares one exchange between concurrent first requests', async () => {
    const platform = fakePlatform();
    const client = connect(platform);
    const answers = await Promise.all(Array.from({ length: 8 }, () => listKits(client)));
    expect(answers.map((a) => a.response.status)).toEqual(Array(8).fill(200));
    expect(platform.exchanges).toHaveLength(1);
  });

  it('shares one token cache between clients given the same provider', async () => {
    const platform = fakePlatform();
    const tokenProvider = new ClientCredentialsTokenProvider({ baseUrl: ORIGIN, ...credentials, fetch: platform.fetch });
    const first = createPlatformClient({ baseUrl: ORIGIN, tokenProvider, fetch: platform.fetch });
    const second = createPlatformClient({ baseUrl: ORIGIN, tokenProvider, fetch: platform.fetch });
    await deleteAccount(first);
    await listKits(second);
    expect(platform.exchanges).toHaveLength(1);
    expect(bearers(platform)).toEqual([bearerNo(1), bearerNo(1)]);
  });

  it('uses the environment preset for the exchange and the requests', async () => {
    const platform = fakePlatform();
    const urls: string[] = [];
    const client = connect(platform, { baseUrl: undefined, environment: 'sandbox', fetch: (request) => (urls.push(request.url), platform.fetch(request)) });
    await deleteAccount(client);
    const sandbox = environmentBaseUrls.sandbox;
    expect(urls).toEqual([`${sandbox}/oauth/token`, `${sandbox}/accounts/${accountId}`]);
  });
});

describe('a token the platform refuses (401)', () => {
  it.each([
    ['with retries', { minDelayMs: 1 }],
    ['without retries', false],
  ] as const)('is replaced once and the request, body included, sent again (%s)', async (_how, retry) => {
    const platform = fakePlatform();
    const client = connect(platform, { retry });
    await listKits(client);
    platform.revokeTokens();

    const consent = await client.POST('/accounts/{accountId}/consents', { params: { path: { accountId } }, body: { type: 'privacy_policy' } });
    expect(consent.response.status).toBe(201);
    expect(consent.data).toMatchObject({ type: 'privacy_policy', accountId });
    expect(platform.exchanges).toHaveLength(2);
    expect(platform.calls.slice(1).map((c) => [c.method, c.authorization, c.body])).toEqual([
      ['POST', bearerNo(1), '{"type":"privacy_policy"}'],
      ['POST', bearerNo(2), '{"type":"privacy_policy"}'],
    ]);
  });

  it('is replaced once for many requests refused together', async () => {
    // Half the refusals arrive after the new token is cached: they must not drop it.
    let exchanged!: () => void;
    const refreshed = new Promise<void>((resolve) => (exchanged = resolve)).then(() => new Promise((resume) => setTimeout(resume, 5)));
    const platform = fakePlatform({ apiWait: (n) => (n > 3 ? refreshed : undefined), whileExchanging: () => platform.exchanges[1] && exchanged() });
    const client = connect(platform);
    await listKits(client);
    platform.revokeTokens();
    const answers = await Promise.all(Array.from({ length: 6 }, () => listKits(client)));
    expect(answers.map((a) => a.response.status)).toEqual(Array(6).fill(200));
    expect(platform.exchanges).toHaveLength(2);
    expect(bearers(platform).filter((b) => b === bearerNo(2))).toHaveLength(6);
  });

  it('is answered to the caller when the new token is refused too', async () => {
    const platform = fakePlatform({ api: () => refused });
    const { response, error } = await deleteAccount(connect(platform));
    expect(response.status).toBe(401);
    expect(error).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Authorization missing or invalid' });
    expect(bearers(platform)).toEqual([bearerNo(1), bearerNo(2)]);
    expect(platform.exchanges).toHaveLength(2);
  });
});

describe('a call that sets its own Authorization', () => {
  it.each([
    ['a bearer token of its own', 'Bearer at_external'],
    ['an API key (diagnostics take either)', 'ApiKey sk_test_1'],
  ])('is sent with %s, unchanged, and a 401 is not retried', async (_what, authorization) => {
    const platform = fakePlatform({ api: () => refused });
    const { response } = await connect(platform).GET('/diagnostics/v0/kits', { headers: { Authorization: authorization } });
    expect(response.status).toBe(401);
    expect(bearers(platform)).toEqual([authorization]);
    expect(platform.exchanges).toHaveLength(0);
  });
});

describe('together with retries and errors', () => {
  it('retries a rate-limited read with the same token', async () => {
    const limited: Answer = { status: 429, body: { statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded' }, headers: { 'retry-after': '0' } };
    const platform = fakePlatform({ api: (n) => (n === 0 ? limited : undefined) });
    expect((await listKits(connect(platform))).response.status).toBe(200);
    expect(bearers(platform)).toEqual([bearerNo(1), bearerNo(1)]);
    expect(platform.exchanges).toHaveLength(1);
  });

  it('rejects the call with an OAuthError when the credentials are refused, and sends nothing', async () => {
    const platform = fakePlatform();
    const call = deleteAccount(connect(platform, { clientSecret: 'cs_wrong_secret_value' }));
    await expect(call).rejects.toThrow(OAuthError);
    await expect(call).rejects.toMatchObject({ status: 401, error: 'invalid_client' });
    expect(platform.calls).toHaveLength(0);
  });
});

function exchangeOf({ clientId, clientSecret, audience }: typeof credentials) {
  return { client_id: clientId, client_secret: clientSecret, audience };
}
