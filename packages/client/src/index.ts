/** A typed fetch client for the pharmacy platform API, generated from the contract's `paths`. */
import type { paths } from '@pharmacy/contract';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { idempotencyKeys, retryingFetch, type RetryOptions } from './retries.js';

export { isValidationError, type NotFoundErrorBody, type UnauthorizedErrorBody, type ValidationErrorBody } from './errors.js';
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

export type PharmacyEnvironment = 'local' | 'sandbox' | 'production';

/** The spec's servers (with the empty `alias`). */
export const environmentBaseUrls: Record<PharmacyEnvironment, string> = {
  local: 'http://localhost:3000',
  sandbox: 'https://sandbox.pharmacy.example.com',
  production: 'https://api.pharmacy.example.com',
};

export type PharmacyClientOptions = ({ baseUrl: string; environment?: never } | { environment: PharmacyEnvironment; baseUrl?: never }) & {
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

export function createPharmacyClient(options: PharmacyClientOptions): PharmacyClient {
  const baseUrl = options.baseUrl ?? environmentBaseUrls[options.environment!];
  if (!baseUrl) throw new Error(`createPharmacyClient: unknown environment ${String(options.environment)}`);
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
