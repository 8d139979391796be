import type { ServiceDeps } from '../service-deps.js';

/** Fill requests: create, read, list; dispensing a fill. */
export class FillRequestService {
  constructor(private readonly deps: ServiceDeps) {}
}
