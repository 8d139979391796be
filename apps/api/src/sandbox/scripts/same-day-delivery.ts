import { nowMs } from '../../clock.js';
import type { SameDayDeliveryLifecycle } from '../../same-day-delivery/same-day-delivery-lifecycle.js';
import type { SandboxScript } from '../sandbox-script.js';

/**
 * Forced outcomes of a sandbox same-day delivery order: markers in `metadata` or
 * `delivery_instruction` (documented in the spec's `x-sandbox-triggers`).
 * `sandbox:canceled` → CANCELED before a courier is booked; `sandbox:failed` → collected,
 * then FAILED; `sandbox:incomplete` → collected, then delivered INCOMPLETE; none → DELIVERED.
 */
type SameDayTrigger = 'deliver' | 'canceled' | 'failed' | 'incomplete';

export function sameDayTrigger(...texts: (string | null | undefined)[]): SameDayTrigger {
  const text = texts.filter(Boolean).join('\n');
  if (text.includes('sandbox:canceled')) return 'canceled';
  if (text.includes('sandbox:failed')) return 'failed';
  if (text.includes('sandbox:incomplete')) return 'incomplete';
  return 'deliver';
}

/**
 * The simulated courier: books itself (`AWAITING_PICKUP`), collects the order
 * (`IN_TRANSIT`) and delivers it (`DELIVERED`), unless a marker cancels it, fails it or
 * has it delivered incomplete.
 */
export function sameDayDeliveryScript(deliveries: SameDayDeliveryLifecycle): SandboxScript {
  return async (uow, token, index) => {
    const order = await deliveries.find(uow, token);
    const trigger = sameDayTrigger(order.metadata, order.delivery_instruction);
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
