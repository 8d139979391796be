import { nowMs } from '../../clock.js';
import type { SameDayDeliveryLifecycle } from '../../same-day-delivery/same-day-delivery-lifecycle.js';
import type { SandboxScript } from '../sandbox-script.js';
import { sameDayTrigger } from '../sandbox-triggers.js';

/**
 * The simulated courier: books itself (`AWAITING_PICKUP`), collects the order
 * (`IN_TRANSIT`) and delivers it (`DELIVERED`), unless the create's `simulation` (or a deprecated marker) cancels it, fails it or
 * has it delivered incomplete.
 */
export function sameDayDeliveryScript(deliveries: SameDayDeliveryLifecycle): SandboxScript {
  return async (uow, token, index, simulation) => {
    const order = await deliveries.find(uow, token);
    const trigger = sameDayTrigger(simulation, order.metadata, order.delivery_instruction);
    const eta = (minutes: number) => new Date(nowMs() + minutes * 60_000).toISOString();
    if (index === 0) {
      if (trigger === 'canceled') {
        await deliveries.cancel(uow, token, 'The courier service could not serve the order (sandbox:canceled).');
        return 'done';
      }
      await deliveries.assignCourier(uow, token, {
        company: 'Sandbox Courier',
        name: 'Sam R.',
        phone: null,
        tracking_url: `https://courier.sandbox.example.com/track/${token}`,
        eta: eta(90),
      });
      return 'next';
    }
    if (index === 1) {
      await deliveries.pickUp(uow, token, eta(40));
      return 'next';
    }
    if (trigger === 'failed') await deliveries.fail(uow, token, 'The courier could not reach the patient (sandbox:failed).');
    else if (trigger === 'incomplete') await deliveries.deliver(uow, token, 'An item was missing from the bag (sandbox:incomplete).');
    else await deliveries.deliver(uow, token);
    return 'done';
  };
}
