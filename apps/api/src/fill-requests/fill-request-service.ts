import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { CopayRequestService } from '../copay-requests/copay-request-service.js';
import { isOwnedBy, ownerColumns, visibleTo } from '../db/ownership.js';
import { forbidden, invalidField, notFound, validationFailed, type ValidationErrorItem } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import type { InsuranceService } from '../insurances/insurance-service.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PrescriptionService } from '../prescriptions/prescription-service.js';
import { randomToken } from '../tokens.js';
import type { CreatedAtOperator, FillRequestMedicationRow, FillRequestRepository, FillRequestRow } from './fill-request-repository.js';

type Schemas = components['schemas'];
export type FillRequestCreate = Schemas['FillRequestCreate'];

const FILL_REQUEST_NOT_FOUND = 'Fill request not found.';
const FILL_REQUEST_OF_ANOTHER_CUSTOMER = 'This record belongs to another customer.';
export const FILL_REQUEST_RECEIVED = 'Fill request received.';
const DEFAULT_LIMIT = 20;

const OPERATORS: Record<string, CreatedAtOperator> = { lt: '<', gt: '>', lte: '<=', gte: '>=', eq: '=' };

interface FillRequestListParams {
  created_at?: string;
  limit?: number;
  next?: string;
  metadata?: string;
}

interface FillRequestPage {
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

/** Fill requests: create (which fills the prescriptions), read, list. fill-lifecycle.ts carries them on. */
export class FillRequestService {
  constructor(
    private readonly fillRequests: FillRequestRepository,
    private readonly units: UnitsOfWork,
    private readonly patients: PatientService,
    private readonly prescriptions: PrescriptionService,
    private readonly insurances: InsuranceService,
    private readonly copayRequests: CopayRequestService,
  ) {}

  /**
   * Checks every record the body names, then in one unit of work stores the insurance
   * records its card fields describe, fills each prescription, stores the request and opens
   * its copay requests. Any refusal writes nothing.
   */
  async create(owner: Owner, input: FillRequestCreate, requestId: string): Promise<FillRequestRow> {
    const patient = await this.patients.get(owner, input.patient_token);
    const medications = input.medications ?? [];
    const plans = input.insurances ?? [];
    const namedInsurances = plans.flatMap((p) => (p.insurance_token ? [p.insurance_token] : []));

    const [prescriptions, ownInsurances, replacementExists] = await Promise.all([
      this.prescriptions.findMany(medications.map((m) => m.prescription_token)),
      this.insurances.tokensOfPatient(patient.token, namedInsurances),
      input.replacement_order === undefined ? true : this.fillRequests.existsFor(owner, input.replacement_order),
    ]);

    const now = new Date();
    const byToken = new Map(prescriptions.map((rx) => [rx.token, rx]));
    const errors: ValidationErrorItem[] = [];
    medications.forEach((m, i) => {
      const rx = byToken.get(m.prescription_token);
      const key = `medications.${i}.prescription_token`;
      if (!rx || !isOwnedBy(rx, owner)) {
        errors.push({ key, message: 'does not exist' });
      } else if (rx.patient_token !== patient.token) {
        errors.push({ key, message: 'does not belong to this patient' });
      } else {
        const reason = this.prescriptions.unfillableReason(rx, now);
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
    const shippingMethod = input.shipping_method ?? 'usps_first';
    return this.units.run(requestId, async (uow) => {
      // Card fields without a token become an insurance record of the patient; the request names every plan by token.
      const planTokens = await this.insurances.record(uow.trx, owner, patient.token, plans, createdAt);
      const { insurances: _cards, ...submitted } = input;
      const payload: Omit<Schemas['FillRequest'], 'request_id' | 'status' | 'created_at' | 'copay_request_ids'> = {
        ...submitted,
        ...(input.insurances ? { insurances: planTokens.map((t) => ({ insurance_token: t })) } : {}),
        shipping_method: shippingMethod,
      };
      const row: FillRequestRow = {
        token,
        ...ownerColumns(owner),
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
      const fills: FillRequestMedicationRow[] = [];
      for (const [i, m] of medications.entries()) {
        const outcome = await this.prescriptions.fill(uow.trx, byToken.get(m.prescription_token)!, now);
        if ('refused' in outcome) throw validationFailed([notFillable(i, outcome.refused)]);
        const { fill_number, quantity, days_supply, refills_remaining, quantity_remaining } = outcome.filled;
        fills.push({ fill_request_token: token, position: i, prescription_token: m.prescription_token, fill_number, quantity, days_supply, refills_remaining, quantity_remaining });
      }
      await this.fillRequests.insert(row, fills, uow.trx);
      await uow.started(owner, 'fill_request', token);
      const primaryPlan = input.patient_payment_type === 'insurance' ? planTokens[0] : undefined;
      if (primaryPlan) {
        await this.copayRequests.open(uow.trx, owner, { fillRequestToken: token, patientToken: patient.token, insuranceToken: primaryPlan, createdAt }, fills);
      }
      return row;
    });
  }

  /** Another customer's request answers 403; one of the other environment does not exist here. */
  async get(owner: Owner, token: string): Promise<FillRequestRecord> {
    const row = visibleTo(await this.fillRequests.findByToken(token), owner, {
      notFound: () => notFound(FILL_REQUEST_NOT_FOUND),
      otherCustomer: () => forbidden(FILL_REQUEST_OF_ANOTHER_CUSTOMER),
    });
    return { row, copayRequestIds: await this.copayRequests.idsForFillRequest(token) };
  }

  async list(owner: Owner, params: FillRequestListParams): Promise<FillRequestPage> {
    const limit = params.limit ?? DEFAULT_LIMIT;
    const scope = { owner, list: 'fill_requests' };
    const cursor = params.next === undefined ? undefined : decodeCursor(scope, params.next);
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
      next_page_token: rows.length > limit && last ? encodeCursor(scope, { after: last.created_at, token: last.token }) : null,
    };
  }
}
