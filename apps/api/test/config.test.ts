import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ConfigError, loadConfig, missingSettings } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createTestDatabase } from './support/test-database.js';

const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('base64');

describe('configuration', () => {
  it('has defaults that work out of the box', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      databaseUrl: './data/pharmacy.db',
      bodyLimit: 1048576,
      pharmacy: { name: 'Open Pharmacy', idNumber: '0000000', pharmacist: 'Pat Pharmacist', location: 'Austin, TX' },
      sandboxStepDelayMs: 3000,
      webhooks: {
        timeoutMs: 15_000,
        retryScheduleMs: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        allowPrivateUrls: false,
        concurrency: 16,
        endpointConcurrency: 4,
        disableAfterMs: 5 * 86_400_000,
        disableMinFailures: 10,
        specialRangesFile: expect.stringMatching(/reference-data\/ip-special-purpose\.json$/),
      },
    });
  });

  it('takes the pharmacy’s own identity (direct transfers must name it) and the webhook settings, trimmed and parsed', () => {
    const config = loadConfig({
      PHARMACY_NAME: ' Platform Pharmacy ',
      PHARMACY_ID_NUMBER: '0598765',
      PHARMACY_PHARMACIST: 'Morgan Reyes',
      PHARMACY_LOCATION: 'Portland, OR',
      WEBHOOK_RETRY_SCHEDULE: '0, 250ms, 5s, 2m, 1h, 1d',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_DISABLE_AFTER: ' 36h ',
      WEBHOOK_DISABLE_MIN_FAILURES: '25',
      WEBHOOK_SPECIAL_RANGES_FILE: '/etc/pharmacy/ip-special-purpose.json',
    });
    expect(config.pharmacy).toEqual({ name: 'Platform Pharmacy', idNumber: '0598765', pharmacist: 'Morgan Reyes', location: 'Portland, OR' });
    expect(config.webhooks).toMatchObject({
      retryScheduleMs: [0, 250, 5_000, 120_000, 3_600_000, 86_400_000],
      allowPrivateUrls: true,
      endpointConcurrency: 2,
      disableAfterMs: 36 * 3_600_000,
      disableMinFailures: 25,
      specialRangesFile: '/etc/pharmacy/ip-special-purpose.json',
    });
    expect(loadConfig({ WEBHOOK_DISABLE_AFTER: 'never' }).webhooks.disableAfterMs).toBeNull();
  });

  it('takes the previous secrets keys of a rotation, comma-separated; none by default', () => {
    expect(loadConfig({}).previousSecretsKeys).toEqual([]);
    const config = loadConfig({ SECRETS_KEY: KEY_B, SECRETS_KEY_PREVIOUS: ` ${KEY_A} , ${KEY_B}` });
    expect(config.previousSecretsKeys.map((k) => k.toString('base64'))).toEqual([KEY_A, KEY_B]);
  });

  it('issues tokens for the default audience and issuer for an hour, and takes others; signing keys as the secrets key', () => {
    expect(loadConfig({}).oauth).toEqual({
      issuerTemplate: 'https://{tenant}.auth.pharmacy.example.com/',
      audience: 'https://api.pharmacy.example.com',
      tokenTtlSeconds: 3600,
      signingKey: undefined,
      previousSigningKeys: [],
    });
    const config = loadConfig({
      OAUTH_ISSUER: 'https://auth.example.org/{tenant}/',
      OAUTH_AUDIENCE: ' urn:example:platform ',
      OAUTH_TOKEN_TTL: '600',
      TOKEN_SIGNING_KEY: KEY_B,
      TOKEN_SIGNING_KEY_PREVIOUS: KEY_A,
    });
    expect(config.oauth).toMatchObject({ issuerTemplate: 'https://auth.example.org/{tenant}/', audience: 'urn:example:platform', tokenTtlSeconds: 600 });
    expect(config.oauth.signingKey?.toString('base64')).toBe(KEY_B);
    expect(config.oauth.previousSigningKeys.map((k) => k.toString('base64'))).toEqual([KEY_A]);
  });

  it('bounds requests and rate-limits by default, and takes other bounds or no rate limits', () => {
    expect(loadConfig({})).toMatchObject({
      requestLimits: { bodyMaxDepth: 32, bodyMaxMembers: 1000, requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 72_000 },
      rateLimit: { enabled: true, windowMs: 60_000, max: 1000, anonymousMax: 300, authFailuresMax: 20 },
    });
    const config = loadConfig({
      BODY_MAX_DEPTH: '8',
      BODY_MAX_MEMBERS: '200',
      REQUEST_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '4000',
      RATE_LIMIT_ENABLED: 'false',
      RATE_LIMIT_WINDOW_MS: '1000',
      RATE_LIMIT_MAX: '50',
      RATE_LIMIT_ANONYMOUS_MAX: '10',
      RATE_LIMIT_AUTH_FAILURES_MAX: '3',
    });
    // The header timeout never exceeds the request's.
    expect(config.requestLimits).toEqual({ bodyMaxDepth: 8, bodyMaxMembers: 200, requestTimeoutMs: 5000, headersTimeoutMs: 5000, keepAliveTimeoutMs: 4000 });
    expect(config.rateLimit).toEqual({ enabled: false, windowMs: 1000, max: 50, anonymousMax: 10, authFailuresMax: 3 });
  });

  it('keeps the audit trail on, flushed every 250 ms and kept six years, by default; takes other settings', () => {
    expect(loadConfig({}).audit).toEqual({ enabled: true, flushMs: 250, retentionMs: 2190 * 86_400_000, bufferMax: 100_000 });
    expect(loadConfig({ AUDIT_TRAIL: 'false', AUDIT_FLUSH_MS: '1000', AUDIT_RETENTION: 'never', AUDIT_BUFFER_MAX: '5000' }).audit).toEqual({
      enabled: false,
      flushMs: 1000,
      retentionMs: null,
      bufferMax: 5000,
    });
    expect(loadConfig({ AUDIT_RETENTION: '30d' }).audit.retentionMs).toBe(30 * 86_400_000);
  });

  it('keeps 10 PostgreSQL connections and the server\'s synchronous_commit by default; takes PG_POOL_SIZE and PG_SYNCHRONOUS_COMMIT', () => {
    expect(loadConfig({}).postgres).toEqual({ poolSize: 10, synchronousCommit: undefined });
    expect(loadConfig({ PG_POOL_SIZE: '32', PG_SYNCHRONOUS_COMMIT: 'off' }).postgres).toEqual({ poolSize: 32, synchronousCommit: 'off' });
    expect(() => loadConfig({ PG_POOL_SIZE: '0' })).toThrow('PG_POOL_SIZE must be an integer from 1');
    expect(() => loadConfig({ PG_SYNCHRONOUS_COMMIT: 'sometimes' })).toThrow('PG_SYNCHRONOUS_COMMIT must be one of on, off, local, remote_write, remote_apply');
  });

  it.skipIf(process.env.TEST_DATABASE !== 'postgres')('sets PG_SYNCHRONOUS_COMMIT on every pooled connection, beside the URL\'s own options', async () => {
    const test = await createTestDatabase();
    const database = openDatabase(test.url, { poolSize: 2, synchronousCommit: 'off' });
    try {
      const settings = await Promise.all(
        [0, 1, 2].map(() => sql<{ sc: string; sp: string }>`select current_setting('synchronous_commit') as sc, current_setting('search_path') as sp`.execute(database.db)),
      );
      for (const { rows } of settings) expect(rows[0]).toEqual({ sc: 'off', sp: expect.stringMatching(/^test_/) });
      const untouched = await sql<{ sc: string }>`select current_setting('synchronous_commit') as sc`.execute(test.handle.db);
      expect(untouched.rows[0]!.sc).toBe('on');
    } finally {
      await database.close();
      await test.dispose();
    }
  });

  it.each([
    [{ AUDIT_TRAIL: 'sometimes' }, 'AUDIT_TRAIL must be true or false'],
    [{ AUDIT_FLUSH_MS: '0' }, 'AUDIT_FLUSH_MS must be an integer from 10'],
    [{ AUDIT_RETENTION: 'forever' }, 'AUDIT_RETENTION must be a duration'],
    [{ AUDIT_BUFFER_MAX: '10' }, 'AUDIT_BUFFER_MAX must be an integer from 1000'],
  ])('stops on a bad audit trail setting: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    [{ BODY_MAX_DEPTH: '1' }, 'BODY_MAX_DEPTH must be an integer from 2 to 1000'],
    [{ BODY_MAX_MEMBERS: 'many' }, 'BODY_MAX_MEMBERS must be an integer'],
    [{ REQUEST_TIMEOUT_MS: '0' }, 'REQUEST_TIMEOUT_MS must be an integer'],
    [{ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' }, 'HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS'],
    [{ KEEP_ALIVE_TIMEOUT_MS: '-5' }, 'KEEP_ALIVE_TIMEOUT_MS must be an integer'],
    [{ RATE_LIMIT_ENABLED: 'maybe' }, 'RATE_LIMIT_ENABLED must be true or false'],
    [{ RATE_LIMIT_WINDOW_MS: '10' }, 'RATE_LIMIT_WINDOW_MS must be an integer from 1000'],
    [{ RATE_LIMIT_MAX: '0' }, 'RATE_LIMIT_MAX must be an integer from 1'],
    [{ RATE_LIMIT_ANONYMOUS_MAX: '1.5' }, 'RATE_LIMIT_ANONYMOUS_MAX must be an integer'],
    [{ RATE_LIMIT_AUTH_FAILURES_MAX: '' + 2e6 }, 'RATE_LIMIT_AUTH_FAILURES_MAX must be an integer'],
  ])('stops on a bad request or rate limit: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be an integer'],
    [{ PORT: '70000' }, 'PORT must be an integer'],
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL must be postgres://'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ PHARMACY_NAME: '  ' }, 'PHARMACY_NAME must be a non-empty text'],
    [{ PHARMACY_ID_NUMBER: '' }, 'PHARMACY_ID_NUMBER must be a non-empty text'],
    [{ PHARMACY_PHARMACIST: 'x'.repeat(256) }, 'PHARMACY_PHARMACIST must be a non-empty text of at most 255 characters'],
    [{ PHARMACY_LOCATION: '' }, 'PHARMACY_LOCATION must be a non-empty text'],
    [{ SANDBOX_STEP_DELAY_MS: '-1' }, 'SANDBOX_STEP_DELAY_MS must be an integer'],
    [{ SECRETS_KEY: 'c2hvcnQ=' }, 'SECRETS_KEY must be the base64 of 32 random bytes'],
    [{ SECRETS_KEY_PREVIOUS: 'c2hvcnQ=' }, 'SECRETS_KEY_PREVIOUS must be a comma-separated list of keys, each the base64 of 32 bytes'],
    [{ SECRETS_KEY_PREVIOUS: `${KEY_A},,${KEY_B}` }, 'SECRETS_KEY_PREVIOUS must be a comma-separated list'],
    [{ WEBHOOK_RETRY_SCHEDULE: '0,5x' }, 'WEBHOOK_RETRY_SCHEDULE must be 1 to 8 comma-separated durations'],
    [{ WEBHOOK_RETRY_SCHEDULE: '1,2,3,4,5,6,7,8,9' }, 'WEBHOOK_RETRY_SCHEDULE must be 1 to 8 comma-separated durations'],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_URLS must be true or false'],
    [{ WEBHOOK_ENDPOINT_CONCURRENCY: '0' }, 'WEBHOOK_ENDPOINT_CONCURRENCY must be an integer from 1 to 256'],
    [{ WEBHOOK_DISABLE_AFTER: '5 days' }, 'WEBHOOK_DISABLE_AFTER must be a duration such as 5d'],
    [{ WEBHOOK_DISABLE_AFTER: '366d' }, 'WEBHOOK_DISABLE_AFTER must be a duration such as 5d'],
    [{ WEBHOOK_DISABLE_MIN_FAILURES: '0' }, 'WEBHOOK_DISABLE_MIN_FAILURES must be an integer'],
    [{ WEBHOOK_SPECIAL_RANGES_FILE: ' ' }, 'WEBHOOK_SPECIAL_RANGES_FILE must be a non-empty text'],
    [{ OAUTH_ISSUER: 'https://auth.example.com/' }, 'OAUTH_ISSUER must be an http(s) URL naming {tenant} once'],
    [{ OAUTH_ISSUER: 'https://{tenant}.{tenant}.example.com/' }, 'OAUTH_ISSUER must be an http(s) URL naming {tenant} once'],
    [{ OAUTH_ISSUER: 'ftp://{tenant}.example.com/' }, 'OAUTH_ISSUER must be an http(s) URL naming {tenant} once'],
    [{ OAUTH_AUDIENCE: '' }, 'OAUTH_AUDIENCE must be a non-empty text'],
    [{ OAUTH_TOKEN_TTL: '59' }, 'OAUTH_TOKEN_TTL must be an integer from 60 to 86400'],
    [{ OAUTH_TOKEN_TTL: '86401' }, 'OAUTH_TOKEN_TTL must be an integer from 60 to 86400'],
    [{ TOKEN_SIGNING_KEY: 'c2hvcnQ=' }, 'TOKEN_SIGNING_KEY must be the base64 of 32 random bytes'],
    [{ TOKEN_SIGNING_KEY_PREVIOUS: `${KEY_A},nope` }, 'TOKEN_SIGNING_KEY_PREVIOUS must be a comma-separated list of keys'],
  ])('stops with a message naming the variable for %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('settings the service starts without (logged at start)', () => {
  const pg = 'postgres://127.0.0.1:5432/none';
  it('names SECRETS_KEY and TOKEN_SIGNING_KEY on PostgreSQL while they are unset, each once', () => {
    const missing = missingSettings(loadConfig({ DATABASE_URL: pg }));
    expect(missing).toHaveLength(2);
    expect(missing[0]).toMatch(/^SECRETS_KEY is unset/);
    expect(missing[1]).toMatch(/^TOKEN_SIGNING_KEY is unset/);
    expect(missingSettings(loadConfig({ DATABASE_URL: pg, SECRETS_KEY: KEY_A }))).toEqual([expect.stringMatching(/^TOKEN_SIGNING_KEY/)]);
    expect(missingSettings(loadConfig({ DATABASE_URL: pg, SECRETS_KEY: KEY_A, TOKEN_SIGNING_KEY: KEY_B }))).toEqual([]);
  });

  it('names nothing on the embedded database, which keeps generated keys beside its file', () => {
    expect(missingSettings(loadConfig({ DATABASE_URL: './data/x.db' }))).toEqual([]);
  });
});
