/**
 * Configuration, read from the environment once at boot and validated; a bad value stops
 * the process with a message naming the variable.
 */
export interface Config {
  port: number;
  host: string;
  /** `postgres://...` for PostgreSQL; otherwise the embedded database's file. */
  databaseUrl: string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  logLevel: string;
  /**
   * How long records read often (patients) stay in the in-process read cache. Only safe
   * where this process owns the database: defaults to 30 s on the embedded database and
   * to 0 (off) on PostgreSQL, which several processes may share.
   */
  readCacheTtlMs: number;
  /** The service's own pharmacy; direct transfers must name it as `transfer_to`. */
  pharmacy: PharmacyIdentity;
}

export interface PharmacyIdentity {
  name: string;
  idNumber: string;
  pharmacist: string;
}

export class ConfigError extends Error {}

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

function text(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const value = raw.trim();
  if (!value || value.length > 255) throw new ConfigError(`${name} must be a non-empty text of at most 255 characters`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL || './data/pharmacy.db';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl) && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be postgres://... or the path of the embedded database file');
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    bodyLimit: integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    logLevel,
    readCacheTtlMs: integer(env, 'READ_CACHE_TTL_MS', /^postgres(ql)?:\/\//.test(databaseUrl) ? 0 : 30_000, 0, 3_600_000),
    pharmacy: {
      name: text(env, 'PHARMACY_NAME', 'Open Pharmacy'),
      idNumber: text(env, 'PHARMACY_ID_NUMBER', '0000000'),
      pharmacist: text(env, 'PHARMACY_PHARMACIST', 'Pat Pharmacist'),
    },
  };
}
