import type { FastifyBaseLogger } from 'fastify';
import { WorkerLoop } from './background/worker-loop.js';
import type { Config } from './config.js';
import type { Services } from './services.js';
import { WebhookDeliveryWorker } from './webhook-deliveries/webhook-delivery-worker.js';

/** How often the sandbox's simulator looks for due steps when it has none. */
const SANDBOX_IDLE_MS = 250;
/** How often expired idempotency keys are deleted. */
const IDEMPOTENCY_PRUNE_MS = 60_000;

/** Every background loop of the service (webhook delivery, the sandbox pharmacy, ...). */
export function createWorkers(services: Services, config: Config, log: FastifyBaseLogger): WorkerLoop[] {
  return [
    new WebhookDeliveryWorker(services.webhookDelivery, config.webhooks, log),
    // The sandbox's simulated pharmacy (it finds nothing to do without sandbox requests).
    new WorkerLoop('sandbox-simulator', () => services.sandboxSimulator.tick(), log, SANDBOX_IDLE_MS),
    // Keys are replayed for 24 hours, then forgotten (deleted in one statement, so a tick that deleted some is not repeated at once).
    new WorkerLoop('idempotency-keys', async () => (await services.idempotency.prune(), 0), log, IDEMPOTENCY_PRUNE_MS),
  ];
}
