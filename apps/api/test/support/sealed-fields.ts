import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { validateResponse } from '@pharmacy/contract/testing';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { keyIdOf } from '../../src/crypto/keyring.js';
import type { Db } from '../../src/db/database.js';
import type { TestDatabase } from './test-database.js';

const run = promisify(execFile);
const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A patient's identifiers that are stored sealed, in clear. */
export const identifiers = { ssn: '123456789', ssn_serial: '6789', mbi: '1EG4TE5MK73', id_image: 'https://files.example.com/id/jane.png' };

/**
 * Log text without the numbers every line carries (its time, the process id, a response
 * time), for checking it holds none of `identifiers`: a four-digit one (`ssn_serial`) is
 * found in a millisecond timestamp now and then.
 */
export function withoutLineNumbers(text: string): string {
  return text.replace(/"(time|pid|responseTime)":[\d.]+/g, '"$1":0');
}

/** Two keys of a rotation: the one retired, and the one that replaces it. */
export const OLD_KEY = Buffer.alloc(32, 1).toString('base64');
export const NEW_KEY = Buffer.alloc(32, 2).toString('base64');

/** What every value sealed under `key` (base64) starts with. */
export function sealedWith(key: string): string {
  return `v2:${keyIdOf(Buffer.from(key, 'base64'))}:`;
}

/** A patient's row as the database holds it. */
export function storedPatient(db: Db, token: string) {
  return db.selectFrom('patients').selectAll().where('token', '=', token).executeTakeFirstOrThrow();
}

export interface OtherProcess {
  app: App;
  /** Every log line it wrote, as written. */
  logs: string[];
  /** A GET with an API key, its answer checked against the spec. */
  get(path: string, apiKey: string): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

/** The service as another process with its own configuration (`env`) would run it on the test's database. */
export async function otherProcess(database: TestDatabase, env: Record<string, string>): Promise<OtherProcess> {
  const logs: string[] = [];
  const config = loadConfig({ LOG_LEVEL: 'info', ...env });
  const logger = { level: 'info', stream: { write: (line: string) => logs.push(line) } };
  const app = await buildApp({ config, database: database.handle, logger, workers: false });
  return {
    app,
    logs,
    async get(path, apiKey) {
      const response = await app.fastify.inject({ method: 'GET', url: path, headers: { authorization: `ApiKey ${apiKey}` } });
      const json = response.json();
      const problems = validateResponse({ method: 'GET', url: path, status: response.statusCode, contentType: response.headers['content-type'] as string, body: json });
      if (problems.length) throw new Error(`contract: ${problems.map((p) => p.message).join('; ')}`);
      return { status: response.statusCode, json };
    },
    close: () => app.fastify.close(),
  };
}

/** `pnpm admin <args>` on the test's database with these keys; resolves with stdout, rejects with the exit code and stderr. */
export function adminWithKeys(database: TestDatabase, keys: { SECRETS_KEY: string; SECRETS_KEY_PREVIOUS?: string }, args: string[]) {
  return run(process.execPath, ['bin/admin.mjs', ...args], {
    cwd: apiRoot,
    env: { ...process.env, DATABASE_URL: database.url, SECRETS_KEY_PREVIOUS: '', ...keys },
  });
}
