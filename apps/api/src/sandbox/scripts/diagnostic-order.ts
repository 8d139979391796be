import type { CataloguePanel } from '../../diagnostics/catalogue.js';
import type { DiagnosticLifecycle } from '../../diagnostics/diagnostic-lifecycle.js';
import type { UnitOfWork } from '../../events/unit-of-work.js';
import type { SandboxScript } from '../sandbox-script.js';
import { labTrigger } from '../sandbox-triggers.js';
import { simulatedAccessionId, simulatedKitSerial, simulatedReport, simulatedTrackingNumber } from '../simulated-lab.js';

type Step = (lab: DiagnosticLifecycle, uow: UnitOfWork, id: string) => Promise<unknown>;

const carrier = () => ({ carrier: 'usps', tracking_number: simulatedTrackingNumber() });

/** The kit's way to the patient (not for a kit the customer holds). */
const TO_PATIENT: Step[] = [
  (lab, uow, id) => lab.ship(uow, id, { ...carrier(), kit_serial: simulatedKitSerial() }),
  (lab, uow, id) => lab.inTransit(uow, id),
  (lab, uow, id) => lab.deliver(uow, id),
];

/** The sample's way to the lab. */
const TO_LAB: Step[] = [
  (lab, uow, id) => lab.shipToLab(uow, id, carrier()),
  (lab, uow, id) => lab.inTransitToLab(uow, id),
  (lab, uow, id) => lab.deliverToLab(uow, id),
];

/**
 * A lab order (its `ORDER_SUCCESS` was recorded when it was made): the kit ships to the
 * patient and the sample back to the lab, then the lab accesses the kit and releases
 * normal results; or, as the create's `simulation` (or a deprecated marker in `custom_data_1..3`) asks, results out of range
 * (`sandbox:abnormal`), or a rejection once the sample reached the lab
 * (`sandbox:reject`, `sandbox:reject:fixable`).
 */
export function diagnosticOrderScript(lab: DiagnosticLifecycle): SandboxScript {
  return async (uow, id, index, simulation) => {
    const order = await lab.find(uow, id);
    const trigger = labTrigger(simulation, order.custom_data_1, order.custom_data_2, order.custom_data_3);
    const rejected = trigger === 'reject' || trigger === 'reject_fixable';
    const last: Step = rejected
      ? (l, u, i) => l.reject(u, i, { reason: 'The sample could not be processed (sandbox:reject).', fixable: trigger === 'reject_fixable' })
      : (l, u, i) => l.releaseResults(u, i, simulatedReport(JSON.parse(order.panels) as CataloguePanel[], trigger === 'abnormal'));
    const steps: Step[] = [
      ...(order.registered ? [] : TO_PATIENT),
      ...TO_LAB,
      ...(rejected ? [] : [(l: DiagnosticLifecycle, u: UnitOfWork, i: string) => l.accessKit(u, i, simulatedAccessionId())]),
      last,
    ];
    const step = steps[index];
    if (!step) return 'done';
    await step(lab, uow, order.id);
    return index === steps.length - 1 ? 'done' : 'next';
  };
}
