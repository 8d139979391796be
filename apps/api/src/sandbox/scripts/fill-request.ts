import { LifecycleError } from '../../errors.js';
import type { FillLifecycle } from '../../fill-requests/fill-lifecycle.js';
import type { SandboxScript } from '../sandbox-script.js';
import { fillTrigger } from '../sandbox-triggers.js';

/**
 * A fill request: dispensed (`ORDER`), then shipped (`SHIPMENT` IN_TRANSIT, OUT_FOR_DELIVERY,
 * DELIVERED), unless the create's `simulation` (or a deprecated marker) holds it (triage),
 * refuses it (error) or returns it.
 */
export function fillRequestScript(fills: FillLifecycle): SandboxScript {
  return async (uow, token, index, simulation) => {
    const request = await fills.find(uow, token);
    const trigger = fillTrigger(simulation, request.metadata);
    if (index === 0) {
      if (trigger === 'triage') {
        await fills.triage(uow, token, 'A pharmacist is reviewing the order (sandbox:triage).');
        return 'done';
      }
      if (trigger === 'error') {
        await fills.refuse(uow, token, 'The order could not be filled (sandbox:error).');
        return 'done';
      }
      await fills.dispense(uow, token);
      return 'next';
    }
    if (!request.order_token) throw new LifecycleError('INVALID', `Fill request ${token} has no order.`);
    const milestones = trigger === 'returned' ? (['IN_TRANSIT', 'RETURNED'] as const) : (['IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'] as const);
    const status = milestones[index - 1];
    if (!status) return 'done';
    await fills.ship(uow, request.order_token, status);
    return index === milestones.length ? 'done' : 'next';
  };
}
