import type { ServiceDeps } from '../service-deps.js';

/** Copay requests. */
export class CopayRequestService {
  constructor(private readonly deps: ServiceDeps) {}
}
