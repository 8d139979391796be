/** A typed fetch client for the pharmacy platform API, generated from the contract's `paths`. */
import type { paths } from '@pharmacy/contract';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { idempotencyKeys, retryingFetch, type RetryOptions } from './retries.js';
import { baseUrlOf, type ServerChoice } from './environments.js';

export {
  ClientCredentialsTokenProvider,
  type AccessToken,
  type AccessTokenProvider,
  type ClientCredentialsOptions,
} from './access-tokens.js';
export { environmentBaseUrls, type PharmacyEnvironment, type ServerChoice } from './environments.js';
export {
  isValidationError,
  OAuthError,
  TokenExchangeError,
  type NotFoundErrorBody,
  type OAuthErrorBody,
  type OAuthErrorCode,
  type PlatformUnauthorizedErrorBody,
  type UnauthorizedErrorBody,
  type ValidationErrorBody,
} from './errors.js';
export { createPlatformClient, type PlatformClientOptions } from './platform-client.js';
/** The contract's generated types, to name a schema: `components['schemas']['Patient']`. */
export type { components, paths } from '@pharmacy/contract';
export type { Middleware } from 'openapi-fetch';
export { idempotencyKeys, retryingFetch, type RetryOptions } from './retries.js';
export {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type PharmacyWebhookCallbackType,
  type PharmacyWebhookEvent,
  type PharmacyWebhookEventOf,
  type SignWebhookOptions,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './webhooks.js';

export type PharmacyClientOptions = ServerChoice & {
  /** Sent as `Authorization: ApiKey <key>`; the key selects customer and environment. */
  apiKey?: string;
  /** Sent as `Authorization: Bearer <token>` instead of an API key. */
  bearerToken?: string;
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Retries of requests that got no answer or a passing refusal (`409` key in flight, `429`,
   * `502`-`504`), with the same `Idempotency-Key` (added to every POST and PUT that has
   * none). Default 2 retries; `false` or `{ retries: 0 }` turns them off.
   */
  retry?: RetryOptions | false;
  /** Run after the auth middleware, e.g. `contractMiddleware()` from `@pharmacy/contract/testing`. */
  middleware?: Middleware[];
};

export type PharmacyClient = Client<paths>;

export function createPharmacyClient(options: PharmacyClientOptions = {}): PharmacyClient {
  const baseUrl = baseUrlOf(options, 'createPharmacyClient');
  if (options.apiKey && options.bearerToken) throw new Error('createPharmacyClient: pass apiKey or bearerToken, not both');
  const fetchOnce = options.fetch ?? ((request: Request) => fetch(request));
  const client = createClient<paths>({
    baseUrl,
    fetch: options.retry === false ? fetchOnce : retryingFetch(fetchOnce, options.retry),
  });
  client.use(idempotencyKeys());
  const authorization = options.apiKey ? `ApiKey ${options.apiKey}` : options.bearerToken ? `Bearer ${options.bearerToken}` : undefined;
  if (authorization) client.use(authMiddleware(authorization));
  client.use(...(options.middleware ?? []));
  return client;
}

/** Sets `Authorization` unless the request already carries one (a per-call override). */
function authMiddleware(authorization: string): Middleware {
  return {
    onRequest({ request }) {
      if (!request.headers.has('Authorization')) request.headers.set('Authorization', authorization);
      return request;
    },
  };
}
