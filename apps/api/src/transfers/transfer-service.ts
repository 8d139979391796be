import type { ServiceDeps } from '../service-deps.js';

/** Transfer requests: create, list, read. */
export class TransferService {
  constructor(private readonly deps: ServiceDeps) {}
}
