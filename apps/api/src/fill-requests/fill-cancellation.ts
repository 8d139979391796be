import { randomBytes } from 'node:crypto';
import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { visibleTo } from '../db/ownership.js';
import { badRequest, forbidden, type HttpError } from '../errors.js';
import type { UnitOfWork, UnitsOfWork } from '../events/unit-of-work.js';
import { nowIso } from '../tokens.js';
import { CANCELLABLE, canceledItemsOf, type CanceledItemType, type FillCancellationRepository } from './fill-cancellation-repository.js';
import type { FillRequestRepository, FillRequestRow } from './fill-request-repository.js';

type Schemas = components['schemas'];
export type CancelRequestCreate = Schemas['CancelRequestCreate'];
export type CancelRequestReceipt = Schemas['CancelRequestReceipt'];

const CANCELED_BY_CUSTOMER = { code: '03', description: 'Fill Request Cancelled by Customer Request' } as const;
const MEDICATION_NOT_CANCELED = 'Medication already cancelled or cancellation failed';
const OTC_PRODUCT_NOT_CANCELED = 'OTC Product already cancelled or cancellation failed';
/** The longest SKU a receipt names (the spec's maximum); a longer `item` is canceled with its request, unnamed. */
const SKU_MAX = 64;

/** What else happens in the unit of work of a request that became canceled (a held request's scheduled fill request...). */
export type CanceledHook = (uow: UnitOfWork, request: FillRequestRow, at: string) => Promise<void>;

/** The real platform's one answer for an unknown request, another customer's, or one canceled already. */
function notCancellable(token: string): HttpError {
  return forbidden(`There was an error cancelling this request (${token}), either you are not the owner of the request, or have already cancelled the request.`);
}

/** Refuses a request that can no longer be canceled: 403 when canceled already, 400 when processed. */
function refuseUnlessCancellable(request: FillRequestRow): void {
  if (request.status === 'canceled') throw notCancellable(request.token);
  if (request.status === 'error') throw badRequest(`Fill request ${request.token} could not be processed and can no longer be cancelled.`);
  if (request.order_token !== null || !CANCELLABLE.includes(request.status)) {
    throw badRequest(`Fill request ${request.token} has already been dispensed and can no longer be cancelled.`);
  }
}

const unique = (values: string[]) => [...new Set(values)];

/**
 * Cancels fill requests before they are dispensed (`POST /v1/cancel_request`), whole or
 * item by item. A canceled medication gives its fill back to the prescription; a request
 * with no item left is `canceled`, and the fill lifecycle never dispenses a canceled item.
 */
export class FillCancellation {
  private readonly canceled: CanceledHook[] = [];

  constructor(
    private readonly fillRequests: FillRequestRepository,
    private readonly cancellations: FillCancellationRepository,
    private readonly units: UnitsOfWork,
  ) {}

  /** Runs `hook` in the unit of work of every request that becomes canceled here. */
  onCanceled(hook: CanceledHook): void {
    this.canceled.push(hook);
  }

  /**
   * In one unit of work: takes the request (refused unless it is the owner's and still
   * cancellable), cancels the items named (every item left when none is named), gives their
   * fills back unless the request is held (nothing was filled), and cancels the request when
   * no item is left.
   */
  async cancel(owner: Owner, input: CancelRequestCreate, requestId: string): Promise<CancelRequestReceipt> {
    const token = input.request_id;
    return this.units.run(requestId, async (uow) => {
      const refused = () => notCancellable(token);
      refuseUnlessCancellable(visibleTo(await this.fillRequests.findByToken(token, uow.trx), owner, { notFound: refused, otherCustomer: refused }));
      const at = nowIso();
      // From here the request's row is held: a concurrent cancellation or dispense waits, or went first.
      if (!(await this.cancellations.claim(token, at, uow.trx))) {
        const now = await this.fillRequests.findByToken(token, uow.trx);
        if (now) refuseUnlessCancellable(now);
        throw refused();
      }
      const request = (await this.fillRequests.findByToken(token, uow.trx))!;
      const payload = JSON.parse(request.payload) as Partial<Pick<Schemas['FillRequest'], 'medications' | 'otc_products'>>;
      const medications = unique((payload.medications ?? []).map((m) => m.prescription_token));
      const skus = unique((payload.otc_products ?? []).map((p) => p.item));
      const done = await canceledItemsOf(uow.trx, token);

      const whole = input.medications === undefined && input.otc_products === undefined;
      const namedMedications = whole ? medications.filter((m) => !done.medications.has(m)) : (input.medications ?? []).map((m) => m.prescription_token);
      const namedSkus = whole ? skus.filter((s) => !done.otcProducts.has(s)) : (input.otc_products ?? []).map((p) => p.sku);

      const details = {
        cancelled_medications: [] as { prescription_token: string }[],
        failed_medications: [] as { prescription_token: string; reason: string }[],
        cancelled_otc_products: [] as { sku: string }[],
        failed_otc_products: [] as { sku: string; reason: string }[],
      };
      const newlyCanceled: { item_type: CanceledItemType; item: string }[] = [];
      for (const prescription_token of namedMedications) {
        if (medications.includes(prescription_token) && !done.medications.has(prescription_token)) {
          done.medications.add(prescription_token);
          newlyCanceled.push({ item_type: 'medication', item: prescription_token });
          details.cancelled_medications.push({ prescription_token });
        } else {
          details.failed_medications.push({ prescription_token, reason: MEDICATION_NOT_CANCELED });
        }
      }
      for (const sku of namedSkus) {
        if (skus.includes(sku) && !done.otcProducts.has(sku)) {
          done.otcProducts.add(sku);
          newlyCanceled.push({ item_type: 'otc_product', item: sku });
          if (sku.length <= SKU_MAX) details.cancelled_otc_products.push({ sku });
        } else {
          details.failed_otc_products.push({ sku, reason: OTC_PRODUCT_NOT_CANCELED });
        }
      }
      await this.cancellations.record(token, newlyCanceled, at, uow.trx);

      // A held request filled nothing: there is nothing to give back.
      if (request.status !== 'scheduled') {
        const canceledNow = new Set(newlyCanceled.filter((i) => i.item_type === 'medication').map((i) => i.item));
        const fills = (await this.fillRequests.fillsOf(token, uow.trx)).filter((f) => canceledNow.has(f.prescription_token));
        for (const fill of fills) await this.cancellations.giveBack(fill, request.created_at, uow.trx);
      }

      const left = medications.some((m) => !done.medications.has(m)) || skus.some((s) => !done.otcProducts.has(s));
      if (!left) {
        if (!(await this.cancellations.markCanceled(token, at, uow.trx))) throw refused();
        for (const hook of this.canceled) await hook(uow, request, at);
      }
      return {
        request_id: `cancel_request_${randomBytes(16).toString('hex')}`,
        timestamp: Date.parse(at) / 1000,
        status: 'success',
        details: {
          ...CANCELED_BY_CUSTOMER,
          message: left ? `Accepted: the items listed were cancelled from Fill Request ${token}.` : `Accepted: Fill Request ${token} has been cancelled.`,
          ...details,
        },
      };
    });
  }
}
