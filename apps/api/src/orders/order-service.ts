import type { ServiceDeps } from '../service-deps.js';

/** Orders produced by processed fill requests. */
export class OrderService {
  constructor(private readonly deps: ServiceDeps) {}
}
