import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { CopayRequestRepository, type CopayRequestRow } from '../copay-requests/copay-request-repository.js';
import type { Db } from '../db/database.js';
import type { PrescriptionsTable } from '../db/tables.js';
import { forbidden, invalidField, notFound, validationFailed, type ValidationErrorItem } from '../errors.js';
import { InsuranceRepository, type InsuranceRow } from '../insurances/insurance-repository.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import type { ServiceDeps } from '../service-deps.js';
import { randomToken } from '../tokens.js';
import {
  FillRequestRepository,
  type CreatedAtOperator,
  type FillRequestMedicationRow,
  type FillRequestRow,
} from './fill-request-repository.js';
import { nextFill, type Fill } from './prescription-fill.js';
import { unfillableReason } from '../prescriptions/prescription-presenter.js';

type Schemas = components['schemas'];
export type FillRequestCreate = Schemas['FillRequestCreate'];

export const FILL_REQUEST_NOT_FOUND = 'Fill request not found.';
export const FILL_REQUEST_OF_ANOTHER_CUSTOMER = 'This record belongs to another customer.';
export const FILL_REQUEST_RECEIVED = 'Fill request received.';
const DEFAULT_LIMIT = 20;
/** Attempts to record a fill when concurrent fills keep changing the prescription underneath. */
const FILL_ATTEMPTS = 5;

const OPERATORS: Record<string, CreatedAtOperator> = { lt: '<', gt: '>', lte: '<=', gte: '>=', eq: '=' };

export interface FillRequestListParams {
  created_at?: string;
  limit?: number;
  next?: string;
  metadata?: string;
}

export interface FillRequestPage {
  results: FillRequestRow[];
  next_page_token: string | null;
}

/** A fill request with the ids of the copay requests it opened. */
export interface FillRequestRecord {
  row: FillRequestRow;
  copayRequestIds: string[];
}

/** `is not fillable: it has expired` and the like (the reason, when known, after the seed-style message). */
const notFillable = (i: number, reason: string | null) => ({
  key: `medications.${i}.prescription_token`,
  message: reason ? `is not fillable: it ${reason}` : 'is not fillable',
});

/** `$gte:2026-01-01T00:00:00Z` to an operator and a UTC timestamp comparable with `created_at`. */
function parseCreatedAt(value: string): { op: CreatedAtOperator; value: string } {
  const match = /^\$(lt|gt|lte|gte|eq):(.+)$/.exec(value);
  const at = match ? new Date(match[2]!) : undefined;
  if (!match || !at || Number.isNaN(at.getTime())) {
    throw invalidField('created_at', 'must be an operator and a valid date-time, for example $gte:2026-01-01T00:00:00Z');
  }
  return { op: OPERATORS[match[1]!]!, value: at.toISOString() };
}

/** Fill requests: create (which fills the prescriptions), read, list. */
export class FillRequestService {
  private readonly fillRequests: FillRequestRepository;
  private readonly insurances: InsuranceRepository;
  private readonly copayRequests: CopayRequestRepository;

  constructor(private readonly deps: ServiceDeps) {
    this.fillRequests = new FillRequestRepository(deps.db);
    this.insurances = new InsuranceRepository(deps.db);
    this.copayRequests = new CopayRequestRepository(deps.db);
  }

  /**
   * Checks every record the body names, then in one unit of work stores the insurance
   * records its card fields describe, fills each prescription, stores the request and opens
   * its copay requests. Any refusal writes nothing.
   */
  async create(owner: Owner, input: FillRequestCreate): Promise<FillRequestRow> {
    const patient = await this.deps.patients.get(owner, input.patient_token);
    const medications = input.medications ?? [];
    const plans = input.insurances ?? [];
    const namedInsurances = plans.flatMap((p) => (p.insurance_token ? [p.insurance_token] : []));

    const [prescriptions, ownInsurances, replacementExists] = await Promise.all([
      this.fillRequests.prescriptions(medications.map((m) => m.prescription_token)),
      this.insurances.tokensOfPatient(patient.token, namedInsurances),
      input.replacement_order === undefined ? true : this.fillRequests.existsFor(owner, input.replacement_order),
    ]);

    const now = new Date();
    const byToken = new Map(prescriptions.map((rx) => [rx.token, rx]));
    const errors: ValidationErrorItem[] = [];
    medications.forEach((m, i) => {
      const rx = byToken.get(m.prescription_token);
      const key = `medications.${i}.prescription_token`;
      if (!rx || rx.customer_id !== owner.customerId || rx.environment !== owner.environment) {
        errors.push({ key, message: 'does not exist' });
      } else if (rx.patient_token !== patient.token) {
        errors.push({ key, message: 'does not belong to this patient' });
      } else {
        const reason = unfillableReason(rx, now);
        if (reason) errors.push(notFillable(i, reason));
      }
    });
    plans.forEach((p, i) => {
      if (p.insurance_token && !ownInsurances.has(p.insurance_token)) {
        errors.push({ key: `insurances.${i}.insurance_token`, message: 'does not exist' });
      }
    });
    if (!replacementExists) errors.push({ key: 'replacement_order', message: 'does not exist' });
    if (errors.length) throw validationFailed(errors);

    const createdAt = now.toISOString();
    const token = randomToken();
    // Card fields without a token become an insurance record of the patient; the request names every plan by token.
    const newInsurances: InsuranceRow[] = [];
    const planTokens = plans.map((p) => {
      if (p.insurance_token) return p.insurance_token;
      const row: InsuranceRow = {
        token: randomToken(),
        customer_id: owner.customerId,
        environment: owner.environment,
        patient_token: patient.token,
        cardholder_id: p.cardholder_id!,
        rx_bin: p.rx_bin!,
        rx_group: p.rx_group ?? null,
        pcn: p.pcn ?? null,
        phone_number: p.phone_number ?? null,
        insurance_card_image_url: p.insurance_card_image_url ?? null,
        created_at: createdAt,
      };
      newInsurances.push(row);
      return row.token;
    });
    const shippingMethod = input.shipping_method ?? 'usps_first';
    const { insurances: _cards, ...submitted } = input;
    const payload: Omit<Schemas['FillRequest'], 'request_id' | 'status' | 'created_at' | 'copay_request_ids'> = {
      ...submitted,
      ...(input.insurances ? { insurances: planTokens.map((t) => ({ insurance_token: t })) } : {}),
      shipping_method: shippingMethod,
    };
    const row: FillRequestRow = {
      token,
      customer_id: owner.customerId,
      environment: owner.environment,
      patient_token: patient.token,
      status: input.check_in ? 'triage' : 'pending',
      patient_payment_type: input.patient_payment_type,
      metadata: input.metadata ?? null,
      shipping_method: shippingMethod,
      replacement_order: input.replacement_order ?? null,
      check_in: input.check_in ? 1 : 0,
      payload: JSON.stringify(payload),
      order_token: null,
      created_at: createdAt,
      updated_at: createdAt,
    };
    const primaryPlan = input.patient_payment_type === 'insurance' ? planTokens[0] : undefined;

    await this.deps.transactor.run(async (trx) => {
      await this.insurances.insertMany(newInsurances, trx);
      const fills: FillRequestMedicationRow[] = [];
      for (const [i, m] of medications.entries()) {
        const fill = await this.fill(byToken.get(m.prescription_token)!, i, now, trx);
        fills.push({ fill_request_token: token, position: i, prescription_token: m.prescription_token, ...pick(fill) });
      }
      await this.fillRequests.insert(row, fills, trx);
      await this.deps.sandbox?.schedule(trx, owner, 'fill_request', token);
      if (primaryPlan) {
        const copays: CopayRequestRow[] = fills.map((f) => ({
          token: randomToken(),
          customer_id: owner.customerId,
          environment: owner.environment,
          fill_request_token: token,
          position: f.position,
          patient_token: patient.token,
          prescription_token: f.prescription_token,
          insurance_token: primaryPlan,
          status: 'pending',
          copay_amount_cents: null,
          days_supply: f.days_supply,
          quantity: f.quantity,
          message: null,
          created_at: createdAt,
          completed_at: null,
        }));
        await this.copayRequests.insertMany(copays, trx);
      }
    });
    return row;
  }

  /**
   * Records the next fill of a prescription with a conditional update; when a concurrent
   * fill changed it since it was read, reads it again and retries, and refuses it once it
   * is no longer fillable (so two fills of the last refill never both succeed).
   */
  private async fill(seen: PrescriptionsTable, index: number, now: Date, trx: Db): Promise<Fill> {
    let rx: PrescriptionsTable | undefined = seen;
    for (let attempt = 0; attempt < FILL_ATTEMPTS && rx; attempt++) {
      const fill = nextFill(rx, now);
      if (!fill) break;
      if (await this.fillRequests.applyFill(rx, fill, trx)) return fill;
      [rx] = await this.fillRequests.prescriptions([seen.token], trx);
    }
    throw validationFailed([notFillable(index, rx ? unfillableReason(rx, now) : null)]);
  }

  /** Another customer's request answers 403; one of the other environment does not exist here. */
  async get(owner: Owner, token: string): Promise<FillRequestRecord> {
    const row = await this.fillRequests.findByToken(token);
    if (!row) throw notFound(FILL_REQUEST_NOT_FOUND);
    if (row.customer_id !== owner.customerId) throw forbidden(FILL_REQUEST_OF_ANOTHER_CUSTOMER);
    if (row.environment !== owner.environment) throw notFound(FILL_REQUEST_NOT_FOUND);
    return { row, copayRequestIds: await this.copayRequests.idsForFillRequest(token) };
  }

  async list(owner: Owner, params: FillRequestListParams): Promise<FillRequestPage> {
    const limit = params.limit ?? DEFAULT_LIMIT;
    const cursor = params.next === undefined ? undefined : decodeCursor(params.next);
    const rows = await this.fillRequests.list(owner, {
      createdAt: params.created_at === undefined ? undefined : parseCreatedAt(params.created_at),
      metadata: params.metadata,
      after: cursor && { created_at: cursor.after, token: cursor.token },
      limit: limit + 1,
    });
    const results = rows.slice(0, limit);
    const last = results[results.length - 1];
    return {
      results,
      next_page_token: rows.length > limit && last ? encodeCursor({ after: last.created_at, token: last.token }) : null,
    };
  }
}

function pick(fill: Fill): Omit<FillRequestMedicationRow, 'fill_request_token' | 'position' | 'prescription_token'> {
  return {
    fill_number: fill.fill_number,
    quantity: fill.quantity,
    days_supply: fill.days_supply,
    refills_remaining: fill.refills_remaining,
    quantity_remaining: fill.quantity_remaining,
  };
}
