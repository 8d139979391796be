import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { freePort } from '../bench/processes.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.dispose());

/** `pnpm start`'s process on a free port; answers once it serves. */
async function startServer(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(join(apiRoot, 'node_modules', '.bin', 'tsx'), [join(apiRoot, 'src', 'server.ts')], {
    env: { ...process.env, DATABASE_URL: database.url, PORT: String(port), LOG_LEVEL: 'silent', ...env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 20_000; ; ) {
    try {
      await fetch(`${url}/v1/open-api/api.yml`);
      return { child, port, url };
    } catch {
      if (Date.now() > deadline) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe('stopping the service (SIGTERM)', () => {
  it('exits promptly: a client that connected and sent nothing is cut after SHUTDOWN_GRACE_MS', async () => {
    const { child, port, url } = await startServer({ SHUTDOWN_GRACE_MS: '500' });
    // An idle keep-alive connection (closed at once) and a silent one (held until the grace ends).
    await fetch(`${url}/v1/open-api/api.yml`, { headers: { connection: 'keep-alive' } });
    const silent = connect(port, '127.0.0.1');
    await once(silent, 'connect');
    const closed = once(silent, 'close');
    const started = Date.now();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    const took = Date.now() - started;
    expect(code).toBe(0);
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5_000);
    await closed;
  });
});
