/**
 * The client of the platform interfaces (consults, schedule, diagnostics, accounts), which
 * take an OAuth 2.0 bearer token: the same typed client as `createPharmacyClient`, with the
 * token fetched, cached and refreshed on a `401` for the caller.
 */
import type { paths } from '@pharmacy/contract';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { ClientCredentialsTokenProvider, type AccessTokenProvider } from './access-tokens.js';
import { baseUrlOf, type ServerChoice } from './environments.js';
import { idempotencyKeys, retryingFetch, type RetryOptions } from './retries.js';

type Fetch = (request: Request) => Promise<Response>;

/** Either client credentials (a token provider of the client's own) or a provider to share. */
type Credentials =
  | {
      clientId: string;
      clientSecret: string;
      /** The API the tokens are for (the deployment's `OAUTH_AUDIENCE`). */
      audience: string;
      /** Space-separated scopes to narrow the tokens to; by default all the client's scopes. */
      scope?: string;
      /** Ask for a new token this long before expiry (default 60 s, at most half the token's lifetime). */
      refreshLeewaySeconds?: number;
      tokenProvider?: never;
    }
  | {
      /** An existing provider, e.g. one `ClientCredentialsTokenProvider` shared by several clients. */
      tokenProvider: AccessTokenProvider;
      clientId?: never;
      clientSecret?: never;
      audience?: never;
      scope?: never;
      refreshLeewaySeconds?: never;
    };

export type PlatformClientOptions = ServerChoice &
  Credentials & {
    /** Sends the API requests and the token exchanges. */
    fetch?: Fetch;
    /** As for `createPharmacyClient`: retries of `429`, `502`-`504` and requests with no answer. */
    retry?: RetryOptions | false;
    /** Run before the request is sent; they do not see the bearer token, which is added last. */
    middleware?: Middleware[];
  };

export function createPlatformClient(options: PlatformClientOptions): Client<paths> {
  const baseUrl = baseUrlOf(options, 'createPlatformClient');
  const fetchOnce: Fetch = options.fetch ?? ((request) => fetch(request));
  const tokens = options.tokenProvider
    ? options.tokenProvider
    : new ClientCredentialsTokenProvider({
        baseUrl,
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        audience: options.audience,
        scope: options.scope,
        refreshLeewaySeconds: options.refreshLeewaySeconds,
        // Not retried: a refused exchange will not pass, and a failed one is asked again by the next call.
        fetch: fetchOnce,
      });
  const transport = options.retry === false ? fetchOnce : retryingFetch(fetchOnce, options.retry);
  // Authorization outside the retries: a 429 or 503 is retried with the same token, and a 401
  // (which retryingFetch passes through) triggers one refresh for the whole call.
  const client = createClient<paths>({ baseUrl, fetch: bearerFetch(tokens, transport) });
  client.use(idempotencyKeys());
  client.use(...(options.middleware ?? []));
  return client;
}

/**
 * Sends each request with `Authorization: Bearer <token>`; on a `401`, drops that token and
 * sends the request once more with a new one. A second `401` is the caller's answer.
 * A request that carries its own `Authorization` (set by the call or a middleware) is sent as is.
 */
function bearerFetch(tokens: AccessTokenProvider, send: Fetch): Fetch {
  return async (request) => {
    if (request.headers.has('Authorization')) return send(request);
    // Cloned before the first send, which consumes the body.
    const replay = request.clone();
    const token = await tokens.getToken();
    request.headers.set('Authorization', `Bearer ${token}`);
    const response = await send(request);
    if (response.status !== 401) return response;

    await response.body?.cancel();
    tokens.invalidate(token);
    replay.headers.set('Authorization', `Bearer ${await tokens.getToken()}`);
    return send(replay);
  };
}
