import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { WorkerLiveness } from '../background/worker-loop.js';
import type { DatabaseHandle } from '../db/database.js';

/**
 * The operators' endpoints, outside the API (no credentials, not in the spec):
 * `GET /health/live` answers while the process serves requests; `GET /health/ready` answers
 * `200` when the database answers a trivial query and every background loop runs and has
 * polled recently, else `503` naming what is not ready. Neither says more than names,
 * states and times: no error text, addresses or settings.
 */
export interface HealthSources {
  database: DatabaseHandle;
  workers: readonly { liveness(): WorkerLiveness }[];
}

/** A database that has not answered `select 1` by then counts as unavailable. */
const DATABASE_TIMEOUT_MS = 2000;

type CheckStatus = 'ok' | 'unavailable';

interface WorkerReport {
  status: CheckStatus;
  running: boolean;
  last_poll_at: string | null;
}

export interface Readiness {
  status: CheckStatus;
  /** What is not ready: `database`, `worker:<name>`. Empty when ready. */
  not_ready: string[];
  database: CheckStatus;
  workers: Record<string, WorkerReport>;
}

async function databaseAnswers(database: DatabaseHandle): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DATABASE_TIMEOUT_MS)));
  const query = sql`select 1 as one`.execute(database.db).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function readiness(sources: HealthSources, now = Date.now()): Promise<Readiness> {
  const notReady: string[] = [];
  const database: CheckStatus = (await databaseAnswers(sources.database)) ? 'ok' : 'unavailable';
  if (database !== 'ok') notReady.push('database');
  const workers: Record<string, WorkerReport> = {};
  for (const worker of sources.workers) {
    const { name, running, lastPollAt, staleAfterMs } = worker.liveness();
    const fresh = lastPollAt !== undefined && now - lastPollAt <= staleAfterMs;
    const status: CheckStatus = running && fresh ? 'ok' : 'unavailable';
    if (status !== 'ok') notReady.push(`worker:${name}`);
    workers[name] = { status, running, last_poll_at: lastPollAt === undefined ? null : new Date(lastPollAt).toISOString() };
  }
  return { status: notReady.length === 0 ? 'ok' : 'unavailable', not_ready: notReady, database, workers };
}

export function registerHealth(app: FastifyInstance, sources: HealthSources): void {
  // Probes come every few seconds: their requests are logged only when something goes wrong,
  // and the anonymous rate limit does not count them.
  const quiet = { logLevel: 'warn' as const, config: { probe: true } };
  app.get('/health/live', quiet, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/health/ready', quiet, async (_request, reply) => {
    const report = await readiness(sources);
    return reply
      .code(report.status === 'ok' ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(report);
  });
}
