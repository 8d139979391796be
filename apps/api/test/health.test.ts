import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readiness } from '../src/http/health-routes.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function get(app: TestApp, path: string): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${app.baseUrl}${path}`);
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Asks until the answer has the status wanted (workers poll within moments of the start), or the last answer. */
async function readyUntil(app: TestApp, status: number): Promise<{ status: number; body: any }> {
  let answer = await get(app, '/health/ready');
  for (let i = 0; i < 50 && answer.status !== status; i++) {
    await new Promise((resume) => setTimeout(resume, 100));
    answer = await get(app, '/health/ready');
  }
  return answer;
}

describe('GET /health/live', () => {
  it('answers 200 while the process serves requests, without credentials', async () => {
    const { status, body, headers } = await get(t, '/health/live');
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok' });
    expect(headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /health/ready', () => {
  it('answers 200 when the database answers and every worker runs and has polled', async () => {
    const { status, body } = await readyUntil(t, 200);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', not_ready: [], database: 'ok' });
    const names = t.app.workers.map((w) => w.name);
    expect(names).toContain('scheduler');
    expect(Object.keys(body.workers).sort()).toEqual([...names].sort());
    for (const name of names) {
      expect(body.workers[name]).toEqual({ status: 'ok', running: true, last_poll_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    }
  });

  it('answers 503 naming a worker that was stopped, and 200 again once it runs', async () => {
    const scheduler = t.app.workers.find((w) => w.name === 'scheduler')!;
    await scheduler.stop();
    try {
      const { status, body } = await get(t, '/health/ready');
      expect(status).toBe(503);
      expect(body.status).toBe('unavailable');
      expect(body.not_ready).toEqual(['worker:scheduler']);
      expect(body.workers.scheduler).toMatchObject({ status: 'unavailable', running: false });
    } finally {
      scheduler.start();
    }
    expect((await readyUntil(t, 200)).status).toBe(200);
  });

  it('counts a worker that has not polled for longer than twice its pause as stuck', async () => {
    const names = t.app.workers.map((w) => `worker:${w.name}`);
    const threeHoursOn = Date.now() + 3 * 3_600_000;
    const report = await readiness({ database: t.database.handle, workers: t.app.workers }, threeHoursOn);
    expect(report.status).toBe('unavailable');
    expect(report.not_ready).toEqual(names);
    expect(report.database).toBe('ok');
  });

  it('answers 503 naming the database when it does not answer, and says nothing of why', async () => {
    const other = await startTestApp();
    const handle = other.database.handle;
    const close = handle.close.bind(handle);
    try {
      expect((await readyUntil(other, 200)).status).toBe(200);
      await close();
      // Closed once here: the test app's own cleanup must not close it again.
      handle.close = async () => {};
      const { status, body } = await get(other, '/health/ready');
      expect(status).toBe(503);
      expect(body.database).toBe('unavailable');
      expect(body.not_ready).toContain('database');
      expect(Object.keys(body).sort()).toEqual(['database', 'not_ready', 'status', 'workers']);
      expect(JSON.stringify(body)).not.toMatch(/postgres:|\.db\b|error|password/i);
    } finally {
      await other.close();
    }
  });
});

describe('probes and the anonymous rate limit', () => {
  it('never counts a probe, while the pages still count', async () => {
    const limited = await startTestApp({ RATE_LIMIT_ANONYMOUS_MAX: '3' });
    try {
      for (let i = 0; i < 10; i++) {
        expect((await fetch(`${limited.baseUrl}/health/live`)).status).toBe(200);
        expect([200, 503]).toContain((await fetch(`${limited.baseUrl}/health/ready`)).status);
      }
      const pages = [];
      for (let i = 0; i < 4; i++) pages.push((await fetch(`${limited.baseUrl}/`)).status);
      expect(pages).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});
