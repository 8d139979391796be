/**
 * Safe retries: every POST and PUT gets an `Idempotency-Key` (unless the call sets one),
 * and a request that may not have been processed, or was refused for now, is sent again
 * with the same key, so the action happens once however often it is sent. The operations
 * that declare the header store and replay their first answer; those that do not are safe
 * to repeat (a patient is created once per identity, an update is the same state).
 */
import type { Middleware } from 'openapi-fetch';

export interface RetryOptions {
  /** Attempts after the first; 0 turns retries off. Default 2. */
  retries?: number;
  /** The pause before the first retry, doubled before each next one (with jitter). Default 250 ms. */
  minDelayMs?: number;
  /** The longest pause, also the most a `Retry-After` is honoured. Default 5 s. */
  maxDelayMs?: number;
}

const DEFAULTS: Required<RetryOptions> = { retries: 2, minDelayMs: 250, maxDelayMs: 5000 };

/** Statuses worth another attempt: a request with the key still in flight, rate limited, or a passing server or gateway failure. */
const RETRIABLE = new Set([409, 429, 502, 503, 504]);

/** Adds a fresh `Idempotency-Key` to every POST and PUT that does not carry one. */
export function idempotencyKeys(newKey: () => string = () => crypto.randomUUID()): Middleware {
  return {
    onRequest({ request }) {
      if ((request.method === 'POST' || request.method === 'PUT') && !request.headers.has('Idempotency-Key')) {
        request.headers.set('Idempotency-Key', newKey());
      }
      return request;
    },
  };
}

/** The pause before retry `n` (1-based): the server's `Retry-After` when it gave one, else exponential backoff with jitter. */
function pauseBefore(n: number, response: Response | undefined, options: Required<RetryOptions>): number {
  const retryAfter = Number(response?.headers.get('retry-after'));
  if (response?.headers.has('retry-after') && Number.isFinite(retryAfter)) return Math.min(retryAfter * 1000, options.maxDelayMs);
  const backoff = Math.min(options.minDelayMs * 2 ** (n - 1), options.maxDelayMs);
  return backoff / 2 + Math.random() * (backoff / 2);
}

/** Whether the request may be sent again: reads always; writes only with their idempotency key. */
function repeatable(request: Request): boolean {
  return request.method === 'GET' || request.method === 'HEAD' || request.headers.has('Idempotency-Key');
}

/** Wraps `fetch` so that failed attempts are retried (a `409` only for a request with a key). */
export function retryingFetch(
  fetchOnce: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const settings = { ...DEFAULTS, ...options };
  return async (request) => {
    if (settings.retries <= 0 || !repeatable(request)) return fetchOnce(request);
    for (let attempt = 0; ; attempt++) {
      const last = attempt === settings.retries;
      let response: Response | undefined;
      try {
        response = await fetchOnce(last ? request : request.clone());
      } catch (error) {
        // No answer at all (connection refused or cut): the request may or may not have been processed.
        if (last) throw error;
      }
      if (response && (last || !RETRIABLE.has(response.status))) return response;
      await response?.body?.cancel();
      await new Promise((resume) => setTimeout(resume, pauseBefore(attempt + 1, response, settings)));
    }
  };
}
