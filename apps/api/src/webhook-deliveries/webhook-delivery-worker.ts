import type { FastifyBaseLogger } from 'fastify';
import { WorkerLoop } from '../background/worker-loop.js';
import type { WebhookConfig } from '../config.js';
import type { WebhookDeliveryService } from './webhook-delivery-service.js';

/** The background loop of webhook delivery; stopping it waits for deliveries in flight. */
export class WebhookDeliveryWorker extends WorkerLoop {
  constructor(
    private readonly delivery: WebhookDeliveryService,
    config: WebhookConfig,
    log: FastifyBaseLogger,
  ) {
    super('webhook-delivery', () => delivery.tick(), log, config.pollMs);
    delivery.onWake = () => this.poke();
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.delivery.drain();
  }
}
