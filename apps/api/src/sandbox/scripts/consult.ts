import type { ConsultLifecycle } from '../../consults/consult-lifecycle.js';
import type { SandboxScript } from '../sandbox-script.js';
import { consultTrigger } from '../sandbox-triggers.js';

/**
 * A consult (its `CONSULT` REVIEW was recorded when it was made): the simulated provider
 * completes it; or, as the create's `simulation` (or a deprecated marker in `metadata`) asks, raises an issue the patient then resolves
 * (`sandbox:issue`: `issue`, then `issueCompleted`), or rejects it (`sandbox:reject`).
 * A consult canceled meanwhile ends the script (the decision is refused).
 */
export function consultScript(consults: ConsultLifecycle): SandboxScript {
  return async (uow, id, index, simulation) => {
    const consult = await consults.find(uow, id);
    const trigger = consultTrigger(simulation, consult.metadata);
    if (trigger === 'issue') {
      await consults.decide(uow, id, index === 0 ? 'issue' : 'issueCompleted', { notes: 'Please upload a photo ID (sandbox:issue).' });
      return index === 0 ? 'next' : 'done';
    }
    await consults.decide(uow, id, trigger === 'reject' ? 'rejected' : 'completed', { notes: 'Reviewed by the sandbox provider.' });
    return 'done';
  };
}
