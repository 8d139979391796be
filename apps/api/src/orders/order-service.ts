import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { notFound } from '../errors.js';
import { FillRequestRepository } from '../fill-requests/fill-request-repository.js';
import { FILL_REQUEST_NOT_FOUND } from '../fill-requests/fill-request-service.js';
import type { ServiceDeps } from '../service-deps.js';
import { randomToken } from '../tokens.js';
import { OrderRepository, type DispensedFill, type OrderRow } from './order-repository.js';

type Schemas = components['schemas'];

export const ORDER_NOT_FOUND = 'Order not found.';

/** A fill request that was already processed (or canceled) cannot be dispensed again. */
export class FillRequestNotDispensableError extends Error {
  constructor(readonly fillRequestToken: string, status: string) {
    super(`Fill request ${fillRequestToken} is ${status} and cannot be dispensed.`);
    this.name = 'FillRequestNotDispensableError';
  }
}

/** Without further control the exact prescribed product is dispensed. */
function orderMedication(f: DispensedFill): Schemas['OrderMedication'] {
  return {
    medication_name: f.medication_name,
    dispensed_medication_name: f.prescribed_written_name ?? f.medication_name,
    requested_medication_name: f.medication_name,
    days_supply: f.days_supply,
    quantity: f.quantity,
    fill_number: f.fill_number,
    rx_number: f.rx_number,
    total_refills_allowed: f.number_of_refills_allowed,
    prescription_token: f.prescription_token,
    medication_token: randomToken(),
    dispensed_ndc: f.prescribed_ndc ?? '',
    remaining_refills: { total_remaining_refills: f.refills_remaining, total_quantity_remaining: f.quantity_remaining },
  };
}

/** Orders produced by processed fill requests. */
export class OrderService {
  private readonly orders: OrderRepository;
  private readonly fillRequests: FillRequestRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.orders = new OrderRepository(deps.db);
    this.fillRequests = new FillRequestRepository(deps.db);
  }

  /**
   * Dispenses a fill request (called by the pharmacy's operations, not by integrators): in
   * one unit of work creates its order, pending shipment, from the fills recorded at
   * submission, and marks the request `filled`. Answers the order. A request already
   * processed or canceled is refused with FillRequestNotDispensableError.
   */
  async createForFillRequest(fillRequestToken: string): Promise<OrderRow> {
    return this.deps.transactor.run((trx) => this.createForFillRequestIn(trx, fillRequestToken));
  }

  /** As createForFillRequest, inside the caller's unit of work (so its events commit with it). */
  async createForFillRequestIn(trx: Db, fillRequestToken: string): Promise<OrderRow> {
    const request = await this.fillRequests.findByToken(fillRequestToken, trx);
    if (!request) throw notFound(FILL_REQUEST_NOT_FOUND);
    const now = new Date().toISOString();
    const order: OrderRow = {
      token: randomToken(),
      customer_id: request.customer_id,
      environment: request.environment,
      fill_request_token: request.token,
      patient_token: request.patient_token,
      status: 'pending_shipment',
      date_filled: now,
      medications: JSON.stringify((await this.orders.fillsOf(request.token, trx)).map(orderMedication)),
      otc_products: JSON.stringify((JSON.parse(request.payload) as Schemas['FillRequest']).otc_products ?? []),
      carrier: null,
      tracking_number: null,
      tracking_url: null,
      shipping_method: request.shipping_method,
      metadata: request.metadata,
      created_at: now,
    };
    if (!(await this.orders.markFilled(request.token, order.token, now, trx))) {
      throw new FillRequestNotDispensableError(request.token, request.status);
    }
    await this.orders.insert(order, trx);
    return order;
  }

  /** Another customer's order, or one of the other environment, does not exist here. */
  async get(owner: Owner, token: string): Promise<OrderRow> {
    const row = await this.orders.find(owner, token);
    if (!row) throw notFound(ORDER_NOT_FOUND);
    return row;
  }
}
