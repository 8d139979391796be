import type { components } from '@pharmacy/contract';
import { ownerOfRow } from '../db/ownership.js';
import { existing, LifecycleError } from '../errors.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import { nowIso } from '../tokens.js';
import { sameDayDeliveryMoved, type SameDayDeliveryStatus } from './same-day-delivery-events.js';
import type { SameDayDeliveryChanges, SameDayDeliveryRepository, SameDayDeliveryRow } from './same-day-delivery-repository.js';

type Courier = components['schemas']['SameDayDeliveryCourier'];

/** A courier booked for an order: the service, and what it shares of the driver and tracking. */
export interface CourierBooking {
  company: string;
  name?: string | null;
  phone?: string | null;
  tracking_url?: string | null;
  eta?: string | null;
}

const OPEN: SameDayDeliveryStatus[] = ['PENDING', 'AWAITING_PICKUP', 'IN_TRANSIT'];

function validEta(eta: string | null | undefined): string | null | undefined {
  if (eta === undefined || eta === null) return eta;
  const at = new Date(eta);
  if (Number.isNaN(at.getTime())) throw new LifecycleError('INVALID', 'The ETA must be a valid date-time.');
  return at.toISOString();
}

function validUrl(url: string | null | undefined): string | null | undefined {
  if (url === undefined || url === null) return url;
  try {
    if (/^https?:$/.test(new URL(url).protocol)) return url;
  } catch {
    // refused below
  }
  throw new LifecycleError('INVALID', 'The tracking URL must be a valid http or https URL.');
}

/**
 * What pharmacy staff and the courier service do with a same-day delivery order (the admin
 * CLI's `same-day` command in production, the simulated courier in the sandbox): book a
 * courier (`AWAITING_PICKUP`), hand the order over (`IN_TRANSIT`), deliver it (`DELIVERED`
 * or `INCOMPLETE`), fail or cancel it. Each move changes the order and records its
 * `SAME_DAY_DELIVERY` event in the caller's unit of work; a move from a status that does
 * not allow it is refused (NOT_PENDING).
 */
export class SameDayDeliveryLifecycle {
  constructor(private readonly deliveries: SameDayDeliveryRepository) {}

  /** The order (any customer's: staff and the sandbox act on ids). */
  async find(uow: UnitOfWork, token: string): Promise<SameDayDeliveryRow> {
    return existing(await this.deliveries.findByToken(token, uow.trx), `Same-day delivery ${token}`);
  }

  /** `PENDING` → `AWAITING_PICKUP`: a courier is booked and on the way to the pickup location. */
  assignCourier(uow: UnitOfWork, token: string, booking: CourierBooking) {
    if (!booking.company.trim()) throw new LifecycleError('INVALID', 'The courier company is required.');
    const courier: Courier = { company: booking.company, name: booking.name ?? null, phone: booking.phone ?? null };
    return this.move(uow, token, ['PENDING'], 'AWAITING_PICKUP', {
      courier: JSON.stringify(courier),
      tracking_url: validUrl(booking.tracking_url) ?? null,
      eta: validEta(booking.eta) ?? null,
    }, `Courier ${booking.company} booked; on the way to the pharmacy.`);
  }

  /** `AWAITING_PICKUP` → `IN_TRANSIT`: the courier collected the order. */
  pickUp(uow: UnitOfWork, token: string, eta?: string) {
    const at = validEta(eta);
    return this.move(uow, token, ['AWAITING_PICKUP'], 'IN_TRANSIT', at ? { eta: at } : {}, 'The courier collected the order.');
  }

  /** `IN_TRANSIT` → `DELIVERED` (every item handed over), or `INCOMPLETE` with the reason when some were missing. */
  deliver(uow: UnitOfWork, token: string, missing?: string) {
    const at = nowIso();
    if (missing !== undefined) {
      if (!missing.trim()) throw new LifecycleError('INVALID', 'A reason is required.');
      return this.move(uow, token, ['IN_TRANSIT'], 'INCOMPLETE', { delivered_at: at, eta: null, status_reason: missing }, 'Delivered without every item.');
    }
    return this.move(uow, token, ['IN_TRANSIT'], 'DELIVERED', { delivered_at: at, eta: null }, 'Delivered.');
  }

  /** Any open status → `FAILED`: the order could not be prepared or delivered. */
  fail(uow: UnitOfWork, token: string, reason: string) {
    if (!reason.trim()) throw new LifecycleError('INVALID', 'A reason is required.');
    return this.move(uow, token, OPEN, 'FAILED', { eta: null, status_reason: reason }, 'The delivery failed.');
  }

  /** `PENDING` or `AWAITING_PICKUP` → `CANCELED`: the pharmacy or the courier service cancelled before pickup. */
  cancel(uow: UnitOfWork, token: string, reason: string) {
    if (!reason.trim()) throw new LifecycleError('INVALID', 'A reason is required.');
    return this.move(uow, token, ['PENDING', 'AWAITING_PICKUP'], 'CANCELED', { eta: null, status_reason: reason }, 'The delivery was canceled.');
  }

  private async move(uow: UnitOfWork, token: string, from: readonly SameDayDeliveryStatus[], to: SameDayDeliveryStatus, changes: SameDayDeliveryChanges, message: string) {
    const order = await this.find(uow, token);
    const at = nowIso();
    if (!(await this.deliveries.move(token, from, to, changes, at, uow.trx))) {
      throw new LifecycleError('NOT_PENDING', `Same-day delivery ${token} is ${order.status}.`);
    }
    const moved: SameDayDeliveryRow = { ...order, ...changes, status: to, updated_at: at };
    await uow.emit(ownerOfRow(moved), sameDayDeliveryMoved(moved, message));
    return { id: token, status: to };
  }
}
