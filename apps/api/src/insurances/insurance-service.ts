import type { ServiceDeps } from '../service-deps.js';

/** Insurance records. */
export class InsuranceService {
  constructor(private readonly deps: ServiceDeps) {}
}
