import type { ServiceDeps } from '../service-deps.js';

/** Prescriber records. */
export class PrescriberService {
  constructor(private readonly deps: ServiceDeps) {}
}
