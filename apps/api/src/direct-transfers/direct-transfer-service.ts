import type { ServiceDeps } from '../service-deps.js';

/** Direct transfers: create and read. */
export class DirectTransferService {
  constructor(private readonly deps: ServiceDeps) {}
}
