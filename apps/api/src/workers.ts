import type { FastifyBaseLogger } from 'fastify';
import { WorkerLoop } from './background/worker-loop.js';
import { AUDIT_BATCH } from './audit/audit-trail.js';
import type { Config } from './config.js';
import type { Services } from './services.js';
import { WebhookDeliveryWorker } from './webhook-deliveries/webhook-delivery-worker.js';

/** How often the sandbox's simulator looks for due steps when it has none. */
const SANDBOX_IDLE_MS = 250;
/** How often expired idempotency keys are deleted. */
const IDEMPOTENCY_PRUNE_MS = 60_000;
/** How often audit events older than the retention are deleted. */
const AUDIT_RETENTION_MS = 3_600_000;
/** How often expired dashboard sessions and delivery attempts past their retention are deleted. */
const DASHBOARD_PRUNE_MS = 600_000;

/** Every background loop of the service (webhook delivery, the sandbox pharmacy, ...). */
export function createWorkers(services: Services, config: Config, log: FastifyBaseLogger): WorkerLoop[] {
  const audit = services.audit;
  // Buffered audit entries are written every AUDIT_FLUSH_MS, at once when a full batch waits
  // (a tick that leaves a full batch behind is followed at once; otherwise the loop sleeps).
  const auditFlush = new WorkerLoop('audit-trail', async () => ((await audit.flush()) && audit.waiting >= AUDIT_BATCH ? 1 : 0), log, config.audit.flushMs);
  audit.onBacklog(() => auditFlush.poke());
  return [
    auditFlush,
    new WorkerLoop('audit-retention', async () => (await audit.prune(), 0), log, AUDIT_RETENTION_MS),
    new WebhookDeliveryWorker(services.webhookDelivery, config.webhooks, log),
    // The sandbox's simulated pharmacy (it finds nothing to do without sandbox requests).
    new WorkerLoop('sandbox-simulator', () => services.sandboxSimulator.tick(), log, SANDBOX_IDLE_MS),
    // Held fill requests and auto-refill cycles, submitted when due.
    new WorkerLoop('scheduler', () => services.scheduler.tick(), log, config.refills.pollMs),
    // Keys are replayed for 24 hours, then forgotten (deleted in one statement, so a tick that deleted some is not repeated at once).
    new WorkerLoop('idempotency-keys', async () => (await services.idempotency.prune(), 0), log, IDEMPOTENCY_PRUNE_MS),
    new WorkerLoop('dashboard-retention', async () => (await Promise.all([services.dashboardSessions.prune(), services.deliveryAttempts.prune()]), 0), log, DASHBOARD_PRUNE_MS),
  ];
}
