import type { components } from '@pharmacy/contract';
import { ownerColumns, ownerOfRow } from '../db/ownership.js';
import { existing, LifecycleError } from '../errors.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import type { PrescriptionService } from '../prescriptions/prescription-service.js';
import { nowIso, recordToken } from '../tokens.js';
import * as events from './fill-events.js';
import { canceledItemsOf } from './fill-cancellation-repository.js';
import type { FillRequestMedicationRow, FillRequestRepository, FillRequestRow } from './fill-request-repository.js';
import type { OrderRepository, OrderRow } from './order-repository.js';
import { nowMs } from '../clock.js';

type Schemas = components['schemas'];
type ShipmentStatus = events.ShipmentStatus;

/** What a shipment milestone may set; the first one assigns what is not given. */
interface ShipmentInput {
  carrier?: string;
  tracking_number?: string;
  eta?: string;
}

const CARRIERS: Record<string, { carrier: string; url: (n: string) => string; digits: number }> = {
  usps: { carrier: 'USPS', url: (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`, digits: 22 },
  fedex: { carrier: 'FedEx', url: (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`, digits: 12 },
};

function trackingNumber(digits: number): string {
  let n = '9';
  while (n.length < digits) n += String(Math.floor(Math.random() * 10));
  return n;
}

/** Without further control the exact prescribed product is dispensed. */
function orderMedication(fill: FillRequestMedicationRow, rx: { medication_name: string; prescribed_written_name: string | null; prescribed_ndc: string | null; rx_number: string; number_of_refills_allowed: number }): Schemas['OrderMedication'] {
  return {
    medication_name: rx.medication_name,
    dispensed_medication_name: rx.prescribed_written_name ?? rx.medication_name,
    requested_medication_name: rx.medication_name,
    days_supply: fill.days_supply,
    quantity: fill.quantity,
    fill_number: fill.fill_number,
    rx_number: rx.rx_number,
    total_refills_allowed: rx.number_of_refills_allowed,
    prescription_token: fill.prescription_token,
    medication_token: recordToken(),
    dispensed_ndc: rx.prescribed_ndc ?? '',
    remaining_refills: { total_remaining_refills: fill.refills_remaining, total_quantity_remaining: fill.quantity_remaining },
  };
}

/**
 * What pharmacy staff do with a fill request once submitted: dispense it (its order,
 * pending shipment), put it to a pharmacist (triage) or refuse it (error), and record the
 * carrier's milestones of its order. Each action changes the records and records its
 * `ORDER` or `SHIPMENT` event in the caller's unit of work.
 */
export class FillLifecycle {
  constructor(
    private readonly fillRequests: FillRequestRepository,
    private readonly orders: OrderRepository,
    private readonly prescriptions: PrescriptionService,
  ) {}

  /** The fill request (any customer's: staff and the sandbox act on tokens). */
  async find(uow: UnitOfWork, token: string): Promise<FillRequestRow> {
    return existing(await this.fillRequests.findByToken(token, uow.trx), `Fill request ${token}`);
  }

  /**
   * Fills a pending (or triaged) fill request: its order, pending shipment, from the fills
   * recorded at submission, less the items the customer canceled; the request becomes
   * `filled`; `ORDER` success. A canceled request (or a held one) is refused as not pending.
   */
  async dispense(uow: UnitOfWork, token: string) {
    const request = await this.find(uow, token);
    const notOpen = () => new LifecycleError('NOT_PENDING', `Fill request ${token} is ${request.status}.`);
    if (request.status !== 'pending' && request.status !== 'triage') throw notOpen();
    const now = nowIso();
    const orderToken = recordToken();
    // Marked first: the request's row is held from here, so a cancellation of some of its
    // items comes wholly before this dispense (and is read below) or after it (and is refused).
    if (!(await this.fillRequests.markFilled(token, orderToken, now, uow.trx))) throw notOpen();
    const canceled = await canceledItemsOf(uow.trx, token);
    const fills = (await this.fillRequests.fillsOf(token, uow.trx)).filter((f) => !canceled.medications.has(f.prescription_token));
    const prescriptions = new Map((await this.prescriptions.findMany(fills.map((f) => f.prescription_token), uow.trx)).map((rx) => [rx.token, rx]));
    const otcProducts = ((JSON.parse(request.payload) as Schemas['FillRequest']).otc_products ?? []).filter((p) => !canceled.otcProducts.has(p.item));
    const order: OrderRow = {
      token: orderToken,
      ...ownerColumns(ownerOfRow(request)),
      fill_request_token: request.token,
      patient_token: request.patient_token,
      status: 'pending_shipment',
      date_filled: now,
      medications: JSON.stringify(fills.map((f) => orderMedication(f, prescriptions.get(f.prescription_token)!))),
      otc_products: JSON.stringify(otcProducts),
      carrier: null,
      tracking_number: null,
      tracking_url: null,
      shipping_method: request.shipping_method,
      metadata: request.metadata,
      created_at: now,
    };
    await this.orders.insert(order, uow.trx);
    await uow.emit(ownerOfRow(order), events.orderFilled(order));
    return { fill_request_token: token, order_token: order.token, status: order.status };
  }

  /** Puts a fill request to a pharmacist: it stays in `triage` until dispensed; `ORDER` triage, no order. */
  triage(uow: UnitOfWork, token: string, message = 'A pharmacist is reviewing the order.') {
    return this.hold(uow, token, 'triage', message);
  }

  /** Refuses a fill request: it is in `error`; `ORDER` error, no order. */
  refuse(uow: UnitOfWork, token: string, message: string) {
    return this.hold(uow, token, 'error', message);
  }

  /**
   * A carrier milestone of an order: `SHIPMENT` with it. The first one assigns the carrier
   * and tracking number; the order becomes `shipped`, then `delivered` or `returned`.
   */
  async ship(uow: UnitOfWork, orderToken: string, status: ShipmentStatus, input: ShipmentInput = {}) {
    if (!events.SHIPMENT_STATUSES.includes(status)) {
      throw new LifecycleError('INVALID', `Shipment status must be one of ${events.SHIPMENT_STATUSES.join(', ')}.`);
    }
    const order = existing(await this.orders.findByToken(orderToken, uow.trx), `Order ${orderToken}`);
    const family = CARRIERS[order.shipping_method.startsWith('fedex') ? 'fedex' : 'usps']!;
    const tracking = order.tracking_number ?? input.tracking_number ?? trackingNumber(family.digits);
    const changes: Partial<OrderRow> = {
      status: status === 'DELIVERED' ? 'delivered' : status === 'RETURNED' ? 'returned' : 'shipped',
      carrier: order.carrier ?? input.carrier ?? family.carrier,
      tracking_number: tracking,
      tracking_url: order.tracking_url ?? family.url(tracking),
    };
    if (!(await this.orders.updateShipment(orderToken, changes, uow.trx))) {
      throw new LifecycleError('NOT_PENDING', `Order ${orderToken} is ${order.status}.`);
    }
    const eta = status === 'DELIVERED' || status === 'RETURNED' ? null : (input.eta ?? new Date(nowMs() + 2 * 86_400_000).toISOString());
    await uow.emit(ownerOfRow(order), events.shipment({ ...order, ...changes }, status, eta));
    return { order_token: orderToken, status: changes.status!, shipment_status: status, tracking_number: tracking };
  }

  private async hold(uow: UnitOfWork, token: string, status: 'triage' | 'error', message: string) {
    const request = await this.find(uow, token);
    if (!message.trim()) throw new LifecycleError('INVALID', 'A message is required.');
    if (!(await this.fillRequests.setStatus(token, status, nowIso(), uow.trx))) {
      throw new LifecycleError('NOT_PENDING', `Fill request ${token} is ${request.status}.`);
    }
    await uow.emit(ownerOfRow(request), events.orderNotFilled(request, status, message));
    return { fill_request_token: token, status };
  }
}
