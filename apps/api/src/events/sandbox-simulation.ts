import type { Owner } from '../auth/principal.js';
import { invalidField } from '../errors.js';

/**
 * A create's `simulation` object, as the spec validated it: the outcome the sandbox's
 * simulated pharmacy, lab or provider plays for the new record. The unit of work hands it
 * to the sandbox's schedule with the record (`started`), which keeps it for later steps.
 */
export type SandboxSimulation = object;

/**
 * The simulation a create carries on: none, or the one sent with a sandbox key. With a
 * production key it answers `400` on `simulation` before anything is written.
 */
export function acceptedSimulation<S extends SandboxSimulation>(owner: Owner, simulation: S | undefined): S | undefined {
  if (simulation === undefined) return undefined;
  if (owner.environment !== 'sandbox') throw invalidField('simulation', 'is only accepted with a sandbox API key');
  return simulation;
}
