import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Services } from '../services.js';
import type { WorkerLoop } from './worker-loop.js';

/** Every background loop of the service (webhook delivery, the sandbox pharmacy, ...). */
export function createWorkers(_services: Services, _config: Config, _log: FastifyBaseLogger): WorkerLoop[] {
  return [];
}
