/**
 * Receiving webhooks: Standard Webhooks signatures (https://www.standardwebhooks.com/) and
 * the events' types, generated from the contract's webhook schemas.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from '@pharmacy/contract';

/** Any event the platform sends (the body of a delivery, the `payload` of a listed event). */
export type PharmacyWebhookEvent = components['schemas']['WebhookEvent'];
/** The `callback_type` values. */
export type PharmacyWebhookCallbackType = PharmacyWebhookEvent['callback_type'];
/** The event(s) of one `callback_type`, e.g. `PharmacyWebhookEventOf<'NOTIFY_RX'>`. */
export type PharmacyWebhookEventOf<T extends PharmacyWebhookCallbackType> = Extract<PharmacyWebhookEvent, { callback_type: T }>;

/** Why a delivery was refused: answer it with a `4xx` and do not act on it. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_body';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** A `Headers` object (fetch, Next.js, Hono...) or a plain record (Node's `req.headers`, Express). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The request's headers: `webhook-id`, `webhook-timestamp` and `webhook-signature` are read (any case). */
  headers: WebhookHeaders;
  /** The raw body exactly as received, before any JSON parsing. */
  body: string | Uint8Array;
  /**
   * The endpoint's signing secret, `whsec_` followed by base64. While a secret is being
   * rotated, pass both the new and the old one: a signature by either is accepted.
   */
  secret: string | readonly string[];
  /** How far `webhook-timestamp` may be from now, in seconds (default 300), against replays. */
  toleranceSeconds?: number;
  /** The current time (a `Date`, or milliseconds as `Date.now()` answers); default now. */
  now?: Date | number;
}

export interface SignWebhookOptions {
  /** The delivery id (`webhook-id`), the same on every attempt. */
  id: string;
  /** The attempt's time in seconds since the epoch (`webhook-timestamp`). */
  timestamp: number;
  /** The exact body sent. */
  body: string;
  /** The signing secret, `whsec_` followed by base64. */
  secret: string;
}

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 300;

/** The key bytes of a `whsec_<base64>` secret (the prefix may be left off). */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (!encoded || key.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new TypeError('webhook secret must be whsec_ followed by the base64 of the key');
  }
  return key;
}

function hmac(key: Buffer, id: string, timestamp: string | number, body: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
}

/**
 * The `webhook-signature` header value of a delivery: `v1,` and the base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}` keyed with the secret's bytes.
 */
export function signWebhook({ id, timestamp, body, secret }: SignWebhookOptions): string {
  return `v1,${hmac(secretKey(secret), id, timestamp, body).toString('base64')}`;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(' ');
  }
  return undefined;
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name)?.trim();
  if (!value) throw new WebhookVerificationError('missing_header', `The ${name} header is missing.`);
  return value;
}

/**
 * Verifies a delivery's signature and age, then answers its body as a typed event. Throws a
 * `WebhookVerificationError` (answer `400`/`401`, do not act on the body) when a header is
 * missing, the timestamp is outside the tolerance, or no signature matches the secret.
 * Narrow the answer by `callback_type`. The same `webhook-id` may arrive more than once
 * (retries): drop ids already handled.
 */
export function verifyWebhook(options: VerifyWebhookOptions): PharmacyWebhookEvent {
  const { headers, body, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS } = options;
  const keys = (typeof options.secret === 'string' ? [options.secret] : options.secret).map(secretKey);
  if (!keys.length) throw new TypeError('verifyWebhook: pass at least one secret');
  const id = required(headers, 'webhook-id');
  const timestampText = required(headers, 'webhook-timestamp');
  const signatures = required(headers, 'webhook-signature');

  if (!/^[0-9]{1,15}$/.test(timestampText)) {
    throw new WebhookVerificationError('invalid_timestamp', 'The webhook-timestamp header is not a number of seconds.');
  }
  const timestamp = Number(timestampText);
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const now = Math.floor(nowMs / 1000);
  if (now - timestamp > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_too_old', `The webhook-timestamp is more than ${toleranceSeconds} seconds old.`);
  }
  if (timestamp - now > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_too_new', `The webhook-timestamp is more than ${toleranceSeconds} seconds in the future.`);
  }

  const expected = keys.map((key) => hmac(key, id, timestampText, body));
  const matches = signatures.split(/\s+/).some((entry) => {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') return false;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    return expected.some((signature) => given.length === signature.length && timingSafeEqual(given, signature));
  });
  if (!matches) throw new WebhookVerificationError('no_matching_signature', 'No webhook-signature matches the secret.');

  let event: unknown;
  try {
    event = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is not JSON.');
  }
  if (!event || typeof event !== 'object' || typeof (event as { callback_type?: unknown }).callback_type !== 'string') {
    throw new WebhookVerificationError('invalid_body', 'The body is not a webhook event.');
  }
  return event as PharmacyWebhookEvent;
}
