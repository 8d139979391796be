import { ownerOfRow } from '../db/ownership.js';
import { existing, LifecycleError } from '../errors.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import { nowIso } from '../tokens.js';
import type { CataloguePanel } from './catalogue.js';
import { milestoneEvent } from './diagnostic-events.js';
import type { DiagnosticOrderRepository, DiagnosticOrderRow } from './diagnostic-order-repository.js';
import type { DiagnosticOrderStatus } from './diagnostic-order-tables.js';
import { sealOrderField } from './diagnostic-sealed-fields.js';
import { isKitSerial } from './kit-serials.js';
import { resultsOf, type LabResultInput } from './lab-results.js';

/** A carrier's shipment, as the carrier reports it. */
export interface ShipmentInput {
  carrier: string;
  tracking_number: string;
}

/** A shipment as the spec answers it (`DiagnosticShipment`): a carrier of 1 to 50 characters, a tracking number of 1 to 100. */
function checkedShipment(shipment: ShipmentInput): ShipmentInput {
  const carrier = shipment.carrier.trim();
  const tracking = shipment.tracking_number.trim();
  if (!carrier || carrier.length > 50) throw new LifecycleError('INVALID', 'A carrier is 1 to 50 characters.');
  if (!tracking || tracking.length > 100) throw new LifecycleError('INVALID', 'A tracking number is 1 to 100 characters.');
  return { carrier, tracking_number: tracking };
}

/** Why the lab could not process the sample, and whether a new sample can fix it. */
export interface RejectionInput {
  reason: string;
  fixable: boolean;
  /** The panel concerned, when one panel alone failed (by code or name). */
  panel?: string;
}

/**
 * What happens to a lab order after it is made (seed 6.4), in order: the kit ships to the
 * patient (its serial is registered then, unless the order has one), is in transit, is
 * delivered; the sample ships to the lab, is in transit, is delivered; the lab accesses the
 * kit, then releases the results, or rejects the sample. Each milestone follows the one
 * before it only (an order of a kit the customer holds starts its way at shipped to lab),
 * changes the order and records its `DIAGNOSTICS_*` event in the caller's unit of work.
 * The operator's admin commands and the sandbox's simulated lab drive it.
 */
export class DiagnosticLifecycle {
  constructor(
    private readonly orders: DiagnosticOrderRepository,
    private readonly secrets: SecretBox,
  ) {}

  /** The order (any customer's: the operator and the sandbox act on ids). */
  async find(uow: UnitOfWork, id: string): Promise<DiagnosticOrderRow> {
    return existing(await this.orders.find(id.toLowerCase(), uow.trx), `Order ${id}`);
  }

  /** The kit ships to the patient; its serial is registered now unless the order has one. */
  async ship(uow: UnitOfWork, id: string, shipment: ShipmentInput & { kit_serial?: string }) {
    const order = await this.find(uow, id);
    if (order.registered) throw new LifecycleError('INVALID', `Order ${order.id} is for a kit the customer holds: nothing ships to the patient.`);
    const serial = order.kit_serial ?? shipment.kit_serial;
    if (!serial) throw new LifecycleError('INVALID', `Order ${order.id} has no kit serial: give the serial of the kit shipped.`);
    if (!order.kit_serial) {
      if (!isKitSerial(serial)) throw new LifecycleError('INVALID', `Kit serial ${serial} is not 4 to 64 letters, digits and hyphens.`);
      if (await this.orders.serialTaken(serial, uow.trx)) throw new LifecycleError('INVALID', `Kit serial ${serial} is already registered.`);
    }
    const { carrier, tracking_number } = checkedShipment(shipment);
    return this.move(uow, order, ['ORDER_SUCCESS'], 'SHIPPED', { kit_serial: serial, shipment_carrier: carrier, shipment_tracking_number: tracking_number });
  }

  inTransit(uow: UnitOfWork, id: string) {
    return this.step(uow, id, ['SHIPPED'], 'IN_TRANSIT');
  }

  deliver(uow: UnitOfWork, id: string) {
    return this.step(uow, id, ['IN_TRANSIT'], 'DELIVERED_TO_PATIENT');
  }

  /** The sample ships to the lab: after the kit was delivered, or at once for a kit the customer holds. */
  async shipToLab(uow: UnitOfWork, id: string, shipment: ShipmentInput) {
    const order = await this.find(uow, id);
    if (!order.kit_serial) throw new LifecycleError('INVALID', `Order ${order.id} has no kit registered.`);
    const from: DiagnosticOrderStatus[] = order.registered ? ['ORDER_SUCCESS'] : ['DELIVERED_TO_PATIENT'];
    const { carrier, tracking_number } = checkedShipment(shipment);
    return this.move(uow, order, from, 'SHIPPED_TO_LAB', { return_carrier: carrier, return_tracking_number: tracking_number });
  }

  inTransitToLab(uow: UnitOfWork, id: string) {
    return this.step(uow, id, ['SHIPPED_TO_LAB'], 'IN_TRANSIT_TO_LAB');
  }

  deliverToLab(uow: UnitOfWork, id: string) {
    return this.step(uow, id, ['IN_TRANSIT_TO_LAB'], 'DELIVERED_TO_LAB');
  }

  /** The lab opens the kit and gives the sample its accession id. */
  async accessKit(uow: UnitOfWork, id: string, accessionId: string) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(accessionId)) throw new LifecycleError('INVALID', 'An accession id is 1 to 64 letters, digits, hyphens and underscores.');
    return this.move(uow, await this.find(uow, id), ['DELIVERED_TO_LAB'], 'LAB_ACCESSED_KIT', { accession_id: accessionId });
  }

  /** The lab releases its report: the results are kept (sealed) with the order and become readable. */
  async releaseResults(uow: UnitOfWork, id: string, report: readonly LabResultInput[]) {
    const order = await this.find(uow, id);
    const now = nowIso();
    const results = resultsOf(JSON.parse(order.panels) as CataloguePanel[], report, now);
    const media = new Set([...(JSON.parse(order.media_ids) as string[]), ...results.flatMap((r) => r.media_ids)]);
    return this.move(uow, order, ['LAB_ACCESSED_KIT'], 'RESULTS_AVAILABLE', {
      results_encrypted: sealOrderField(this.secrets, order.id, 'results_encrypted', results),
      resulted_at: now,
      media_ids: JSON.stringify([...media]),
    });
  }

  /** The lab could not process the sample (once it reached the lab): the order ends rejected. */
  async reject(uow: UnitOfWork, id: string, rejection: RejectionInput) {
    const order = await this.find(uow, id);
    const reason = rejection.reason.trim();
    if (!reason || reason.length > 1000) throw new LifecycleError('INVALID', 'A rejection needs a reason of 1 to 1000 characters.');
    let panelName: string | null = null;
    if (rejection.panel !== undefined) {
      const panels = JSON.parse(order.panels) as CataloguePanel[];
      const panel = panels.find((p) => p.code === rejection.panel || p.name.toLowerCase() === rejection.panel!.toLowerCase());
      if (!panel) throw new LifecycleError('INVALID', `Order ${order.id} runs no panel ${rejection.panel}.`);
      panelName = panel.name;
    }
    return this.move(uow, order, ['DELIVERED_TO_LAB', 'LAB_ACCESSED_KIT'], 'REJECTED', {
      rejection_reason: reason,
      rejection_fixable: rejection.fixable ? 1 : 0,
      rejection_panel_name: panelName,
      rejected_at: nowIso(),
    });
  }

  private async step(uow: UnitOfWork, id: string, from: readonly DiagnosticOrderStatus[], to: DiagnosticOrderStatus) {
    return this.move(uow, await this.find(uow, id), from, to, {});
  }

  /** Moves the order from one of `from` to `to` with `changes`, and records the milestone's event. */
  private async move(uow: UnitOfWork, order: DiagnosticOrderRow, from: readonly DiagnosticOrderStatus[], to: DiagnosticOrderStatus, changes: Partial<DiagnosticOrderRow>) {
    const refused = () => new LifecycleError('NOT_PENDING', `Order ${order.id} is ${order.status}; ${to} follows ${from.join(' or ')}.`);
    if (!from.includes(order.status)) throw refused();
    const set = { ...changes, status: to, updated_at: changes.rejected_at ?? nowIso() };
    if (!(await this.orders.advance(uow.trx, order.id, [order.status], set))) throw refused();
    const next: DiagnosticOrderRow = { ...order, ...set };
    await uow.emit(ownerOfRow(order), milestoneEvent(next));
    // What an operator sees of it: ids and state, never the patient's data.
    return { order: { id: next.id, status: next.status, kit_serial: next.kit_serial, updated_at: next.updated_at } };
  }
}
