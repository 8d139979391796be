import { inspect } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ClientCredentialsTokenProvider, OAuthError, TokenExchangeError, type OAuthErrorCode } from '../src/index.js';
import { credentials, fakePlatform, ORIGIN, tokenNo, type Answer, type FakePlatformOptions } from './fake-platform.js';

const provider = (options: FakePlatformOptions = {}, scope?: string) => {
  const platform = fakePlatform(options);
  return { platform, tokens: new ClientCredentialsTokenProvider({ baseUrl: `${ORIGIN}/`, ...credentials, scope, fetch: platform.fetch }) };
};
/** The first exchange answers `answer`, later ones issue tokens. */
const firstAnswers = (answer: Answer): FakePlatformOptions => ({ exchange: (n) => (n === 0 ? answer : undefined) });
const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('the exchange succeeded'), (error: unknown) => error as Error);

describe('the client credentials exchange', () => {
  it('posts the credentials as JSON to /oauth/token, with the scope when given', async () => {
    let sent: Request | undefined;
    const platform = fakePlatform();
    const tokens = new ClientCredentialsTokenProvider({
      baseUrl: `${ORIGIN}/`,
      ...credentials,
      scope: 'accounts:delete',
      fetch: (request) => ((sent = request.clone()), platform.fetch(request)),
    });
    expect(await tokens.getToken()).toBe(tokenNo(1));
    expect(sent?.url).toBe(`${ORIGIN}/oauth/token`);
    expect(sent?.method).toBe('POST');
    expect(sent?.headers.get('content-type')).toBe('application/json');
    expect(await sent?.json()).toEqual({
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      audience: credentials.audience,
      grant_type: 'client_credentials',
      scope: 'accounts:delete',
    });
  });

  it('keeps the token until invalidated, and ignores the invalidation of an older one', async () => {
    const { platform, tokens } = provider();
    const first = await tokens.getToken();
    tokens.invalidate('an-older-token');
    expect(await tokens.getToken()).toBe(first);
    tokens.invalidate(first);
    expect(await tokens.getToken()).toBe(tokenNo(2));
    expect(platform.exchanges).toHaveLength(2);
  });
});

describe('a refused exchange', () => {
  it.each<[OAuthErrorCode, number, string]>([
    ['invalid_request', 400, 'client_id is required.'],
    ['unsupported_grant_type', 400, 'Only client_credentials is supported.'],
    ['invalid_scope', 400, 'The scope consults:write is not granted to the client.'],
    ['access_denied', 400, 'The client may not have a token for this audience.'],
    ['invalid_client', 401, 'Client authentication failed.'],
  ])('throws an OAuthError %s with status %i', async (code, status, description) => {
    const { tokens } = provider(firstAnswers({ status, body: { error: code, error_description: description, request_id: 'req_7Yt2' } }));
    const error = await failure(tokens.getToken());
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'OAuthError', status, error: code, errorDescription: description, requestId: 'req_7Yt2' });
    expect(error.message).toBe(`Token exchange refused (${status} ${code}): ${description}`);
    expectTypeOf<OAuthError['error']>().toEqualTypeOf<
      'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope' | 'access_denied'
    >();
  });
});

describe('a failed exchange', () => {
  it.each([
    [429, { statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded, retry in 3 seconds' }],
    [500, { statusCode: 500, error: 'Internal Server Error', message: 'An internal server error occurred', request_id: 'req_5Kd1' }],
  ])('throws a TokenExchangeError with status %i and its body, and is not cached', async (status, body) => {
    const { platform, tokens } = provider(firstAnswers({ status, body }));
    const error = await failure(tokens.getToken());
    expect(error).toBeInstanceOf(TokenExchangeError);
    expect(error).not.toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ status, body, requestId: (body as { request_id?: string }).request_id, message: `Token exchange failed (${status}): ${body.message}` });
    expect(await tokens.getToken()).toBe(tokenNo(2));
    expect(platform.exchanges).toHaveLength(2);
  });

  it('is thrown to every caller waiting on it, then asked again', async () => {
    const { platform, tokens } = provider(firstAnswers({ status: 500, body: { statusCode: 500, error: 'Internal Server Error', message: 'Down' } }));
    const errors = await Promise.all([failure(tokens.getToken()), failure(tokens.getToken()), failure(tokens.getToken())]);
    expect(errors.map((e) => (e as TokenExchangeError).status)).toEqual([500, 500, 500]);
    expect(platform.exchanges).toHaveLength(1);
    expect(await tokens.getToken()).toBe(tokenNo(2));
  });

  it('throws on a 2xx that is not a Bearer token, without its body', async () => {
    const mac = { access_token: 'secret-mac-token', token_type: 'mac', expires_in: 3600, scope: '' };
    const { tokens } = provider(firstAnswers({ status: 200, body: mac, offSpec: true }));
    const error = await failure(tokens.getToken());
    expect(error).toMatchObject({ name: 'TokenExchangeError', status: 200, body: undefined });
    expect(inspect(error)).not.toContain('secret-mac-token');
  });
});

describe('the client secret', () => {
  const echo = (text: string) => text.replace('%s', credentials.clientSecret);
  it.each<[string, Answer]>([
    ['an OAuth error that echoes it', { status: 401, body: { error: 'invalid_client', error_description: echo('Wrong secret %s.') } }],
    ['a 500 that echoes it', { status: 500, body: { statusCode: 500, error: 'Internal Server Error', message: echo('Failed on %s') } }],
    ['a proxy page that echoes it', { status: 502, body: echo('<html>Bad gateway for client_secret=%s</html>'), offSpec: true }],
  ])('never appears in the error of %s', async (_what, answer) => {
    const { tokens } = provider(firstAnswers(answer));
    const error = await failure(tokens.getToken());
    expect(inspect(error)).toContain('[redacted]'); // the echo reached the error, redacted
    for (const text of [error.message, String(error), inspect(error), JSON.stringify(error)]) {
      expect(text).not.toContain(credentials.clientSecret);
    }
    expect(inspect(tokens)).not.toContain(credentials.clientSecret);
  });
});
