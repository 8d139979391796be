/**
 * Bearer tokens for the platform interfaces (consults, schedule, diagnostics, accounts): the
 * OAuth 2.0 client credentials grant at `POST /oauth/token`. There is no refresh token, so a
 * token is cached and the credentials are exchanged again shortly before it expires.
 */
import type { components } from '@pharmacy/contract';
import { OAuthError, TokenExchangeError, type OAuthErrorBody, type OAuthErrorCode } from './errors.js';

/** An issued token, as `POST /oauth/token` answers it. */
export type AccessToken = components['schemas']['AccessToken'];

/** Where a platform client gets its bearer tokens; share one between clients to share its cache. */
export interface AccessTokenProvider {
  /** A token still valid for a while: the cached one, or a newly issued one. */
  getToken(): Promise<string>;
  /** Forgets `token` because it was refused (`401`), unless a newer token has already replaced it. */
  invalidate(token: string): void;
}

export interface ClientCredentialsOptions {
  /** The server of `/oauth/token`: the API's base URL, unless tokens come from another auth server. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The API the token is for (the deployment's `OAUTH_AUDIENCE`, given with the client's credentials). */
  audience: string;
  /** Space-separated scopes to narrow the token to; by default it carries all the client's scopes. */
  scope?: string;
  fetch?: (request: Request) => Promise<Response>;
  /** Ask for a new token this long before the cached one expires (default 60), at most half its lifetime. */
  refreshLeewaySeconds?: number;
}

const DEFAULT_LEEWAY_SECONDS = 60;
const OAUTH_CODES: ReadonlySet<string> = new Set<OAuthErrorCode>([
  'invalid_request',
  'invalid_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
]);

interface Cached {
  token: string;
  /** `Date.now()` from which the token is no longer handed out. */
  refreshAt: number;
}

/**
 * Exchanges client credentials for tokens and caches them. Concurrent callers share one
 * exchange in flight; a failed exchange is thrown to every waiting caller and not cached,
 * so the next call asks again. Refused exchanges throw `OAuthError`, other failures
 * `TokenExchangeError`; neither message ever holds the client secret.
 */
export class ClientCredentialsTokenProvider implements AccessTokenProvider {
  // Private fields keep the secret out of `console.log(provider)` and `JSON.stringify`.
  readonly #options: Readonly<ClientCredentialsOptions>;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #leewaySeconds: number;
  #cached: Cached | undefined;
  #inFlight: Promise<Cached> | undefined;

  constructor(options: ClientCredentialsOptions) {
    for (const name of ['baseUrl', 'clientId', 'clientSecret', 'audience'] as const) {
      if (typeof options[name] !== 'string' || !options[name]) throw new TypeError(`ClientCredentialsTokenProvider: ${name} is required`);
    }
    const leeway = options.refreshLeewaySeconds ?? DEFAULT_LEEWAY_SECONDS;
    if (!(leeway >= 0)) throw new TypeError('ClientCredentialsTokenProvider: refreshLeewaySeconds must be 0 or more');
    this.#options = { ...options };
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#leewaySeconds = leeway;
  }

  async getToken(): Promise<string> {
    const cached = this.#cached;
    if (cached && Date.now() < cached.refreshAt) return cached.token;
    this.#inFlight ??= this.#exchange().finally(() => {
      this.#inFlight = undefined;
    });
    return (await this.#inFlight).token;
  }

  invalidate(token: string): void {
    // Compare first: after many concurrent 401s on the same token, only the first drops it,
    // and the others pick up the token that replaced it rather than starting exchanges of their own.
    if (this.#cached?.token === token) this.#cached = undefined;
  }

  async #exchange(): Promise<Cached> {
    const { baseUrl, clientId, clientSecret, audience, scope } = this.#options;
    const body = { client_id: clientId, client_secret: clientSecret, audience, grant_type: 'client_credentials', ...(scope ? { scope } : {}) };
    // The lifetime counts from the issue, which is after the request left: measure from the send.
    const sentAt = Date.now();
    const response = await this.#fetch(
      new Request(`${baseUrl.replace(/\/+$/, '')}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    // A server that echoes the request must not carry the secret into an error (or a log of it).
    const text = (await response.text()).split(clientSecret).join('[redacted]');
    const answer = parseJson(text);

    if (response.ok) {
      // The body of a malformed 2xx may hold a token: keep it out of the error.
      if (!isAccessToken(answer)) throw new TokenExchangeError(response.status, undefined, 'the answer is not a Bearer access token');
      const leeway = Math.min(this.#leewaySeconds, answer.expires_in / 2);
      const cached = { token: answer.access_token, refreshAt: sentAt + (answer.expires_in - leeway) * 1000 };
      this.#cached = cached;
      return cached;
    }
    if (isOAuthError(answer)) throw new OAuthError(response.status, answer);
    const message = (answer as { message?: unknown } | undefined)?.message;
    const detail = typeof message === 'string' ? message : response.statusText || 'an unexpected answer';
    throw new TokenExchangeError(response.status, answer ?? text, detail);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isAccessToken(value: unknown): value is AccessToken {
  const { access_token, token_type, expires_in } = (value ?? {}) as Record<string, unknown>;
  return (
    typeof access_token === 'string' &&
    access_token !== '' &&
    // RFC 6749 §5.1: the type is case-insensitive; any other type is not sent as `Bearer`.
    typeof token_type === 'string' &&
    token_type.toLowerCase() === 'bearer' &&
    typeof expires_in === 'number' &&
    Number.isFinite(expires_in) &&
    expires_in >= 0
  );
}

function isOAuthError(value: unknown): value is OAuthErrorBody {
  const { error, error_description } = (value ?? {}) as Record<string, unknown>;
  return typeof error === 'string' && OAUTH_CODES.has(error) && typeof error_description === 'string';
}
