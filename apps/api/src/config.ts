import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Configuration, read from the environment once at boot and validated; a bad value stops
 * the process with a message naming the variable.
 */
export interface Config {
  port: number;
  host: string;
  /** `postgres://...` for PostgreSQL; otherwise the embedded database's file. */
  databaseUrl: string;
  /** PostgreSQL connection settings (unused on the embedded database). */
  postgres: PostgresConfig;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** How much a request may ask of the service before any operation runs (http/body-parsers.ts, app.ts). */
  requestLimits: RequestLimits;
  rateLimit: RateLimitConfig;
  logLevel: string;
  /**
   * How long records read often (patients) stay in the in-process read cache. Only safe
   * where this process owns the database: defaults to 30 s on the embedded database and
   * to 0 (off) on PostgreSQL, which several processes may share.
   */
  readCacheTtlMs: number;
  /**
   * On SIGTERM/SIGINT, how long in-flight requests may finish before the connections still
   * open (a client that connected and sent nothing, a slow upload) are closed (SHUTDOWN_GRACE_MS).
   */
  shutdownGraceMs: number;
  /** The service's own pharmacy; direct transfers must name it as `transfer_to`. */
  pharmacy: PharmacyIdentity;
  /**
   * SECRETS_KEY (base64 of 32 bytes): the AES-256-GCM key that seals stored secrets and
   * personal identifiers (webhook signing secrets; patients' SSN, SSN serial, MBI, ID image).
   * Unset: the embedded database keeps a generated key in `secrets.key` beside its file;
   * PostgreSQL then refuses to seal or open a value (crypto/keyring.ts).
   */
  secretsKey: Buffer | undefined;
  /**
   * SECRETS_KEY_PREVIOUS (comma-separated, each the base64 of 32 bytes): keys that open
   * values sealed before a rotation but never seal; `pnpm admin reencrypt` moves every
   * value to SECRETS_KEY, after which they can be dropped.
   */
  previousSecretsKeys: Buffer[];
  webhooks: WebhookConfig;
  audit: AuditConfig;
  /** Bearer tokens of the platform interfaces (access-tokens/): who issues them, for whom, signed with which keys. */
  oauth: OAuthConfig;
  /** Pause between two steps of the sandbox's simulated pharmacy (SANDBOX_STEP_DELAY_MS). */
  sandboxStepDelayMs: number;
  /** The sandbox's diagnostics catalogue until one is imported (DIAGNOSTICS_SANDBOX_CATALOGUE_FILE, a .json or .csv file). */
  diagnosticsSandboxCatalogueFile: string;
  /** The sandbox's care team (programs, questionnaires, providers) until one is imported (CARE_TEAM_SANDBOX_FILE, a .json file). */
  careTeamSandboxFile: string;
  /** Refills: when one is allowed, and the scheduler that submits held and automatic refills. */
  refills: RefillConfig;
  /**
   * CLOCK_OFFSET_FILE: a file holding how many milliseconds the service's clock runs ahead
   * of the system clock (clock.ts), re-read when it changes. For tests and demos that move
   * time to a due refill instead of waiting; unset in production.
   */
  clockOffsetFile: string | undefined;
  /** Media files (media/): where their bytes are stored, how large they may be, and the key that signs their addresses. */
  media: MediaConfig;
}

/** Media files: their store, size limit and signed addresses (media/). */
export interface MediaConfig {
  /** MEDIA_STORE (default `local`): `local` keeps files in `dir`; `s3` in an S3-compatible bucket (`s3`). */
  store: 'local' | 's3';
  /** MEDIA_DIR (default `media/` beside the embedded database file, `./data/media` on PostgreSQL): the local store's folder. */
  dir: string;
  /** MEDIA_MAX_BYTES (default 10485760, 10 MiB; at most 100 MiB): the largest file an upload may send. */
  maxBytes: number;
  /**
   * MEDIA_PUBLIC_URL: the service's public address, from which signed addresses are built
   * (`https://api.example.com`). Unset: the address the request came to (its `Host`).
   */
  publicUrl: string | undefined;
  /**
   * MEDIA_SIGNING_KEY (base64 of 32 bytes): the HMAC key that signs media addresses. Unset:
   * the embedded database keeps a generated key in `media-signing.key` beside its file;
   * PostgreSQL then refuses to sign or verify one (crypto/media-signing-key.ts).
   */
  signingKey: Buffer | undefined;
  /** The S3-compatible store (MEDIA_STORE=s3): MEDIA_S3_ENDPOINT, _BUCKET, _REGION, _ACCESS_KEY_ID, _SECRET_ACCESS_KEY. */
  s3: MediaS3Config | undefined;
}

export interface MediaS3Config {
  /** MEDIA_S3_ENDPOINT: `https://s3.us-east-1.amazonaws.com`, or any S3-compatible server; path-style addressing. */
  endpoint: string;
  bucket: string;
  /** MEDIA_S3_REGION (default us-east-1). */
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Refills (scheduled-fills/): the early-refill tolerance and the scheduler's pace. */
export interface RefillConfig {
  /**
   * EARLY_REFILL_TOLERANCE (0 to 1, default 0.25): how much of the last fill's days
   * supply may remain when a refill is allowed. 0.25: a 30-day fill may be refilled from
   * day 22.5; 1 never holds a refill.
   */
  earlyRefillTolerance: number;
  /** SCHEDULER_POLL_MS (default 1000): how often the scheduler looks for due actions when it has none. */
  pollMs: number;
  /** SCHEDULER_BATCH (default 50): how many due actions one claim takes. */
  batch: number;
  /** SCHEDULER_CONCURRENCY (default 8): how many of them are performed at once (their reads overlap others' commits). */
  concurrency: number;
}

/** The audit trail of patient data access (audit/audit-trail.ts). */
export interface AuditConfig {
  /** AUDIT_TRAIL (default true): record every read and write of patient data. */
  enabled: boolean;
  /**
   * AUDIT_FLUSH_MS (default 250): entries are buffered in the process and written in one
   * transaction this often (and at once when 500 are waiting, and on shutdown). A process
   * killed outright loses the entries of its last interval.
   */
  flushMs: number;
  /** AUDIT_RETENTION (default 2190d, six years as HIPAA keeps its documentation; `never` keeps every entry). */
  retentionMs: number | null;
  /** AUDIT_BUFFER_MAX (default 100000): entries held while the database cannot take them; beyond, the oldest are dropped and counted in the log. */
  bufferMax: number;
}

/** The token exchange (`POST /oauth/token`) and the verification of bearer tokens. */
export interface OAuthConfig {
  /**
   * OAUTH_ISSUER (default `https://{tenant}.auth.pharmacy.example.com/`): the issuer of a
   * tenant's tokens, `{tenant}` replaced by its tenant id (the tenant's domain, seed 5.2.2).
   */
  issuerTemplate: string;
  /** OAUTH_AUDIENCE (default `https://api.pharmacy.example.com`): the platform API's identifier, the only audience tokens are issued for. */
  audience: string;
  /** OAUTH_TOKEN_TTL (seconds, default 3600, 60 to 86400): how long an issued token lasts. */
  tokenTtlSeconds: number;
  /**
   * TOKEN_SIGNING_KEY (base64 of a 32-byte Ed25519 private key): signs new tokens. Unset:
   * the embedded database keeps a generated key in `token-signing.key` beside its file;
   * PostgreSQL then refuses to issue or verify tokens (crypto/signing-keys.ts).
   */
  signingKey: Buffer | undefined;
  /** TOKEN_SIGNING_KEY_PREVIOUS (comma-separated): keys a rotation retires; they still verify the tokens they signed (and are published) but sign none. */
  previousSigningKeys: Buffer[];
}

/** Bounds on one request and its connection. */
export interface RequestLimits {
  /** Deepest nesting of objects and arrays in a JSON body (BODY_MAX_DEPTH, default 32). */
  bodyMaxDepth: number;
  /** Most members of one object or array in a body, and parameters of a form body (BODY_MAX_MEMBERS, default 1000). */
  bodyMaxMembers: number;
  /** The whole request, headers and body, must arrive within this many ms (REQUEST_TIMEOUT_MS, default 30000). */
  requestTimeoutMs: number;
  /** Its headers must arrive within this many ms (HEADERS_TIMEOUT_MS, default 10000, at most REQUEST_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many ms (KEEP_ALIVE_TIMEOUT_MS, default 72000). */
  keepAliveTimeoutMs: number;
}

/**
 * Rate limits (http/rate-limits.ts), counted per process over fixed windows: each
 * authenticated caller (an API key, later a bearer client) has `max` requests a window;
 * each client address `anonymousMax` requests that authenticate as no one (public
 * operations, unknown paths), and `authFailuresMax` failed authentications, after which its
 * requests to authenticated operations are refused before any credential is looked up.
 */
export interface RateLimitConfig {
  /** RATE_LIMIT_ENABLED (default true). */
  enabled: boolean;
  /** RATE_LIMIT_WINDOW_MS (default 60000). */
  windowMs: number;
  /** RATE_LIMIT_MAX (default 1000). */
  max: number;
  /** RATE_LIMIT_ANONYMOUS_MAX (default 300). */
  anonymousMax: number;
  /** RATE_LIMIT_AUTH_FAILURES_MAX (default 20). */
  authFailuresMax: number;
}

/** Webhook delivery (webhook-deliveries/) and endpoint rules (webhook-endpoints/). */
export interface WebhookConfig {
  /** A `2xx` within this many ms is success (WEBHOOK_TIMEOUT_MS, default 15000). */
  timeoutMs: number;
  /**
   * Delay before each attempt, in ms (WEBHOOK_RETRY_SCHEDULE, 1 to 8 durations): the first
   * after the event is recorded, each next one after the previous attempt failed.
   */
  retryScheduleMs: number[];
  /** Production endpoints may target loopback/private addresses (WEBHOOK_ALLOW_PRIVATE_URLS=true). */
  allowPrivateUrls: boolean;
  /** Deliveries in flight at once per process (WEBHOOK_CONCURRENCY, default 16). */
  concurrency: number;
  /**
   * Deliveries to one endpoint in flight at once per process (WEBHOOK_ENDPOINT_CONCURRENCY,
   * default 4), so a slow or dead endpoint holds at most this many of the process's slots.
   */
  endpointConcurrency: number;
  /**
   * An endpoint whose delivery attempts have all failed for this long (WEBHOOK_DISABLE_AFTER,
   * default 5 days; null: never) and at least `disableMinFailures` times in a row
   * (WEBHOOK_DISABLE_MIN_FAILURES, default 10) is disabled.
   */
  disableAfterMs: number | null;
  disableMinFailures: number;
  /** The special-purpose address ranges production endpoints may not reach (WEBHOOK_SPECIAL_RANGES_FILE). */
  specialRangesFile: string;
  /** How often the worker looks for due deliveries when not poked (WEBHOOK_POLL_MS, default 1000). */
  pollMs: number;
}

export interface PharmacyIdentity {
  name: string;
  idNumber: string;
  pharmacist: string;
  /** Its city, possibly with its state (`NOTIFY_RX` events' `location`). */
  location: string;
}

/** PostgreSQL connection settings (db/database.ts). */
export interface PostgresConfig {
  /**
   * PG_POOL_SIZE (default 10): connections this process keeps to PostgreSQL. A write holds
   * one for its whole transaction (several round trips), so the pool caps the writes in
   * flight; every connection is a server process, so the sum over the service's processes
   * must stay under the server's `max_connections`.
   */
  poolSize: number;
  /**
   * PG_SYNCHRONOUS_COMMIT (default unset: the server's setting, `on` unless changed): the
   * session's `synchronous_commit`. `off` answers a write before its commit record is
   * flushed, so a crash of the PostgreSQL server may lose the last few hundred milliseconds
   * of acknowledged writes (never corrupts); keep the default unless that loss is acceptable.
   */
  synchronousCommit: 'on' | 'off' | 'local' | 'remote_write' | 'remote_apply' | undefined;
}

const SYNCHRONOUS_COMMIT = ['on', 'off', 'local', 'remote_write', 'remote_apply'] as const;

function postgres(env: NodeJS.ProcessEnv): PostgresConfig {
  const synchronousCommit = env.PG_SYNCHRONOUS_COMMIT || undefined;
  if (synchronousCommit !== undefined && !(SYNCHRONOUS_COMMIT as readonly string[]).includes(synchronousCommit)) {
    throw new ConfigError(`PG_SYNCHRONOUS_COMMIT must be one of ${SYNCHRONOUS_COMMIT.join(', ')}`);
  }
  return { poolSize: integer(env, 'PG_POOL_SIZE', 10, 1, 1000), synchronousCommit: synchronousCommit as PostgresConfig['synchronousCommit'] };
}

export class ConfigError extends Error {}

/** The shipped sample catalogue of lab tests, panels and kits (apps/api/reference-data/). */
const DEFAULT_DIAGNOSTICS_CATALOGUE_FILE = fileURLToPath(new URL('../reference-data/diagnostics-catalogue.json', import.meta.url));

/** The shipped sample care team (apps/api/reference-data/). */
const DEFAULT_CARE_TEAM_FILE = fileURLToPath(new URL('../reference-data/care-team.json', import.meta.url));

/** The shipped copy of the IANA special-purpose address registries (apps/api/reference-data/). */
const DEFAULT_SPECIAL_RANGES_FILE = fileURLToPath(new URL('../reference-data/ip-special-purpose.json', import.meta.url));

/** Whether DATABASE_URL names PostgreSQL (anything else is the embedded database's file). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function fraction(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw.trim()) || !(value >= 0 && value <= max)) throw new ConfigError(`${name} must be a number from 0 to ${max}`);
  return value;
}

function text(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const value = raw.trim();
  if (!value || value.length > 255) throw new ConfigError(`${name} must be a non-empty text of at most 255 characters`);
  return value;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s`, `30m`, `5d`... in ms (a bare number is milliseconds); NaN when it is not a duration. */
function parseDuration(text: string): number {
  const match = /^(\d{1,9})(ms|s|m|h|d)?$/.exec(text.trim());
  return match ? Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']! : NaN;
}

/** `0,5s,5m,30m,2h,5h,10h,10h`: 1 to 8 durations (a bare number is milliseconds). */
function durations(env: NodeJS.ProcessEnv, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  const values = raw.split(',').map(parseDuration);
  if (values.length < 1 || values.length > 8 || values.some((v) => !Number.isFinite(v) || v > 7 * 86_400_000)) {
    throw new ConfigError(`${name} must be 1 to 8 comma-separated durations such as 0,5s,5m,2h (each at most 7d), got "${raw}"`);
  }
  return values;
}

/** One duration of at most `maxDays`, or `never` (null). */
function durationOrNever(env: NodeJS.ProcessEnv, name: string, fallback: string, maxDays: number): number | null {
  const raw = (env[name] || fallback).trim();
  if (raw === 'never') return null;
  const value = parseDuration(raw);
  if (!Number.isFinite(value) || value > maxDays * DURATION_UNITS.d!) {
    throw new ConfigError(`${name} must be a duration such as 5d, 12h or 30m (at most ${maxDays}d), or never, got "${raw}"`);
  }
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A key: the base64 of 32 bytes (`openssl rand -base64 32`), or undefined when not a valid one. */
function base64Key(raw: string): Buffer | undefined {
  const key = Buffer.from(raw, 'base64');
  return /^[A-Za-z0-9+/]+={0,2}$/.test(raw) && key.length === 32 ? key : undefined;
}

/** A key setting (SECRETS_KEY, TOKEN_SIGNING_KEY): the base64 of 32 random bytes, or undefined when unset. */
function keySetting(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const key = base64Key(raw);
  if (!key) throw new ConfigError(`${name} must be the base64 of 32 random bytes (openssl rand -base64 32)`);
  return key;
}

/** The keys a rotation retires (SECRETS_KEY_PREVIOUS, TOKEN_SIGNING_KEY_PREVIOUS), comma-separated (empty: none). */
function previousKeys(env: NodeJS.ProcessEnv, name: string): Buffer[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  const keys = raw.split(',').map((part) => base64Key(part.trim()));
  if (keys.some((key) => !key)) {
    throw new ConfigError(`${name} must be a comma-separated list of keys, each the base64 of 32 bytes`);
  }
  return keys as Buffer[];
}

/** OAUTH_ISSUER: an http(s) URL template naming `{tenant}` once. */
function issuerTemplate(env: NodeJS.ProcessEnv): string {
  const template = text(env, 'OAUTH_ISSUER', 'https://{tenant}.auth.pharmacy.example.com/');
  const sample = template.replace('{tenant}', 'tenant');
  if (template.split('{tenant}').length !== 2 || !/^https?:\/\/[^\s{}]+$/.test(sample) || !URL.canParse(sample)) {
    throw new ConfigError('OAUTH_ISSUER must be an http(s) URL naming {tenant} once, such as https://{tenant}.auth.example.com/');
  }
  return template;
}

function oauth(env: NodeJS.ProcessEnv): OAuthConfig {
  return {
    issuerTemplate: issuerTemplate(env),
    audience: text(env, 'OAUTH_AUDIENCE', 'https://api.pharmacy.example.com'),
    tokenTtlSeconds: integer(env, 'OAUTH_TOKEN_TTL', 3600, 60, 86_400),
    signingKey: keySetting(env, 'TOKEN_SIGNING_KEY'),
    previousSigningKeys: previousKeys(env, 'TOKEN_SIGNING_KEY_PREVIOUS'),
  };
}

function requestLimits(env: NodeJS.ProcessEnv): RequestLimits {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 100, 600_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS');
  return {
    bodyMaxDepth: integer(env, 'BODY_MAX_DEPTH', 32, 2, 1000),
    bodyMaxMembers: integer(env, 'BODY_MAX_MEMBERS', 1000, 10, 100_000),
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 600_000),
  };
}

function rateLimit(env: NodeJS.ProcessEnv): RateLimitConfig {
  return {
    enabled: flag(env, 'RATE_LIMIT_ENABLED', true),
    windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    max: integer(env, 'RATE_LIMIT_MAX', 1000, 1, 1_000_000),
    anonymousMax: integer(env, 'RATE_LIMIT_ANONYMOUS_MAX', 300, 1, 1_000_000),
    authFailuresMax: integer(env, 'RATE_LIMIT_AUTH_FAILURES_MAX', 20, 1, 1_000_000),
  };
}

/** MEDIA_*: the media store, limits and signing key. */
function media(env: NodeJS.ProcessEnv, databaseUrl: string): MediaConfig {
  const store = env.MEDIA_STORE || 'local';
  if (store !== 'local' && store !== 's3') throw new ConfigError(`MEDIA_STORE must be local or s3, got "${store}"`);
  const defaultDir = isPostgresUrl(databaseUrl) ? './data/media' : join(dirname(resolve(databaseUrl.replace(/^file:/, ''))), 'media');
  const publicUrl = env.MEDIA_PUBLIC_URL?.trim().replace(/\/+$/, '') || undefined;
  if (publicUrl !== undefined && (!/^https?:\/\/[^\s?#]+$/.test(publicUrl) || !URL.canParse(publicUrl))) {
    throw new ConfigError('MEDIA_PUBLIC_URL must be an http(s) URL such as https://api.example.com');
  }
  let s3: MediaS3Config | undefined;
  if (store === 's3') {
    const required = (name: string): string => {
      const value = env[name]?.trim();
      if (!value) throw new ConfigError(`${name} is required when MEDIA_STORE is s3`);
      return value;
    };
    const endpoint = required('MEDIA_S3_ENDPOINT').replace(/\/+$/, '');
    if (!/^https?:\/\//.test(endpoint) || !URL.canParse(endpoint)) throw new ConfigError('MEDIA_S3_ENDPOINT must be an http(s) URL');
    s3 = {
      endpoint,
      bucket: required('MEDIA_S3_BUCKET'),
      region: text(env, 'MEDIA_S3_REGION', 'us-east-1'),
      accessKeyId: required('MEDIA_S3_ACCESS_KEY_ID'),
      secretAccessKey: required('MEDIA_S3_SECRET_ACCESS_KEY'),
    };
  }
  return {
    store,
    dir: text(env, 'MEDIA_DIR', defaultDir),
    maxBytes: integer(env, 'MEDIA_MAX_BYTES', 10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    publicUrl,
    signingKey: keySetting(env, 'MEDIA_SIGNING_KEY'),
    s3,
  };
}

/**
 * Settings whose absence the service starts without but that some operations need: on
 * PostgreSQL (several processes, no shared key file), SECRETS_KEY and TOKEN_SIGNING_KEY.
 * The server logs each at start, as those operations log it when they fail.
 */
export function missingSettings(config: Pick<Config, 'databaseUrl' | 'secretsKey'> & { oauth: Pick<Config['oauth'], 'signingKey'> }): string[] {
  if (!isPostgresUrl(config.databaseUrl)) return [];
  const missing: string[] = [];
  if (!config.secretsKey) {
    missing.push("SECRETS_KEY is unset: encrypted fields (patients' SSN, MBI, ID image; webhook secrets) can be neither stored nor read");
  }
  if (!config.oauth.signingKey) {
    missing.push('TOKEN_SIGNING_KEY is unset: access tokens can be neither issued (POST /oauth/token) nor verified (bearer operations answer 500)');
  }
  return missing;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL || './data/pharmacy.db';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl) && !isPostgresUrl(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be postgres://... or the path of the embedded database file');
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    postgres: postgres(env),
    bodyLimit: integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    requestLimits: requestLimits(env),
    rateLimit: rateLimit(env),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    logLevel,
    readCacheTtlMs: integer(env, 'READ_CACHE_TTL_MS', isPostgresUrl(databaseUrl) ? 0 : 30_000, 0, 3_600_000),
    pharmacy: {
      name: text(env, 'PHARMACY_NAME', 'Open Pharmacy'),
      idNumber: text(env, 'PHARMACY_ID_NUMBER', '0000000'),
      pharmacist: text(env, 'PHARMACY_PHARMACIST', 'Pat Pharmacist'),
      location: text(env, 'PHARMACY_LOCATION', 'Austin, TX'),
    },
    sandboxStepDelayMs: integer(env, 'SANDBOX_STEP_DELAY_MS', 3000, 0, 86_400_000),
    diagnosticsSandboxCatalogueFile: text(env, 'DIAGNOSTICS_SANDBOX_CATALOGUE_FILE', DEFAULT_DIAGNOSTICS_CATALOGUE_FILE),
    careTeamSandboxFile: text(env, 'CARE_TEAM_SANDBOX_FILE', DEFAULT_CARE_TEAM_FILE),
    secretsKey: keySetting(env, 'SECRETS_KEY'),
    previousSecretsKeys: previousKeys(env, 'SECRETS_KEY_PREVIOUS'),
    webhooks: {
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 1, 120_000),
      retryScheduleMs: durations(env, 'WEBHOOK_RETRY_SCHEDULE', '0,5s,5m,30m,2h,5h,10h,10h'),
      allowPrivateUrls: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256),
      endpointConcurrency: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 256),
      disableAfterMs: durationOrNever(env, 'WEBHOOK_DISABLE_AFTER', '5d', 365),
      disableMinFailures: integer(env, 'WEBHOOK_DISABLE_MIN_FAILURES', 10, 1, 1_000_000),
      specialRangesFile: text(env, 'WEBHOOK_SPECIAL_RANGES_FILE', DEFAULT_SPECIAL_RANGES_FILE),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000),
    },
    audit: {
      enabled: flag(env, 'AUDIT_TRAIL', true),
      flushMs: integer(env, 'AUDIT_FLUSH_MS', 250, 10, 60_000),
      retentionMs: durationOrNever(env, 'AUDIT_RETENTION', '2190d', 36_500),
      bufferMax: integer(env, 'AUDIT_BUFFER_MAX', 100_000, 1000, 10_000_000),
    },
    oauth: oauth(env),
    refills: {
      earlyRefillTolerance: fraction(env, 'EARLY_REFILL_TOLERANCE', 0.25, 1),
      pollMs: integer(env, 'SCHEDULER_POLL_MS', 1000, 10, 60_000),
      batch: integer(env, 'SCHEDULER_BATCH', 50, 1, 1000),
      concurrency: integer(env, 'SCHEDULER_CONCURRENCY', 8, 1, 64),
    },
    clockOffsetFile: env.CLOCK_OFFSET_FILE || undefined,
    media: media(env, databaseUrl),
  };
}
