import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from './support/server-process.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.dispose());

describe('stopping the service (SIGTERM)', () => {
  it('exits promptly: a client that connected and sent nothing is cut after SHUTDOWN_GRACE_MS', async () => {
    const { child, port, url } = await startServerProcess({ DATABASE_URL: database.url, SHUTDOWN_GRACE_MS: '500' });
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
