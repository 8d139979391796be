import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { CopayRequestService } from '../copay-requests/copay-request-service.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { executeInserts } from '../db/transactor.js';
import { forbidden, invalidField, LifecycleError, notFound, validationFailed, type ValidationErrorItem } from '../errors.js';
import type { UnitOfWork, UnitsOfWork } from '../events/unit-of-work.js';
import type { InsuranceService } from '../insurances/insurance-service.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PrescriptionRow } from '../prescriptions/prescription-repository.js';
import type { PrescriptionService } from '../prescriptions/prescription-service.js';
import type { ScheduledActions } from '../scheduled-fills/scheduled-actions.js';
import { recordToken } from '../tokens.js';
import type { CreatedAtOperator, FillRequestMedicationRow, FillRequestRepository, FillRequestRow } from './fill-request-repository.js';
import { now as clockNow } from '../clock.js';
import { acceptedSimulation } from '../events/sandbox-simulation.js';

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

/** What a submitted fill request's unit of work also does, once the request is accepted. */
export type AcceptedHook = (uow: UnitOfWork, owner: Owner, row: FillRequestRow, submitted: FillRequestCreate) => Promise<void>;

/** The records a fill request names, checked: its patient, its prescriptions, and until when it is held as too soon (null: not held). */
export interface CheckedFillRequest {
  patientToken: string;
  byToken: Map<string, PrescriptionRow>;
  heldUntil: Date | null;
}

/** A fill request received: submitted, or held with the scheduled fill request that submits it. */
export interface CreatedFillRequest {
  row: FillRequestRow;
  scheduled?: { id: string; submit_on: string; original_fill_request_token: string };
}

/** Fill requests: create (which fills the prescriptions, or holds a refill that came too soon), read, list. fill-lifecycle.ts carries them on. */
export class FillRequestService {
  private readonly accepted: AcceptedHook[] = [];

  constructor(
    private readonly fillRequests: FillRequestRepository,
    private readonly units: UnitsOfWork,
    private readonly patients: PatientService,
    private readonly prescriptions: PrescriptionService,
    private readonly insurances: InsuranceService,
    private readonly copayRequests: CopayRequestService,
    private readonly scheduledActions: ScheduledActions,
    private readonly earlyRefillTolerance: number,
  ) {}

  /**
   * Submits a fill request: checks every record the body names, then in one unit of work
   * either submits it (`submit`) or, when a refill comes before the earliest date it is
   * allowed, holds it (status `scheduled`, nothing dispensed) with a scheduled action that
   * submits it on that date. Any refusal writes nothing.
   */
  async create(owner: Owner, input: FillRequestCreate, requestId: string): Promise<CreatedFillRequest> {
    acceptedSimulation(owner, input.simulation);
    const now = clockNow();
    const checked = await this.check(owner, input, now);
    const heldUntil = checked.heldUntil;
    if (!heldUntil) return this.units.run(requestId, async (uow) => ({ row: await this.submit(uow, owner, input, checked, now) }));
    // Holding writes two rows and reads nothing: on PostgreSQL one statement, without begin/commit.
    return this.units.runInserts(requestId, async (uow) => {
      const row = this.newRow(owner, input, checked.patientToken, 'scheduled', now.toISOString());
      await this.fillRequests.insert(row, [], uow.trx);
      const scheduled = await this.scheduledActions.schedule(uow, owner, { action_type: 'FILL_REQUEST', submit_on: heldUntil.toISOString(), fill_request_token: row.token });
      return { row, scheduled: { id: scheduled.id, submit_on: scheduled.submit_on, original_fill_request_token: row.token } };
    });
  }

  /**
   * Checks the records a fill request names (before any unit of work): the patient, each
   * prescription (this patient's, fillable), each insurance token, the replaced order. Also
   * says until when a refill must be held: the latest earliest-refill date of its
   * prescriptions, when one is still ahead.
   */
  async check(owner: Owner, input: FillRequestCreate, now: Date): Promise<CheckedFillRequest> {
    const medications = input.medications ?? [];
    const plans = input.insurances ?? [];
    const namedInsurances = plans.flatMap((p) => (p.insurance_token ? [p.insurance_token] : []));

    // The patient is read by its token, so the other records are read beside it (the patient
    // found has the token asked for); its refusals still come first.
    const patientToken = input.patient_token;
    const reading = this.patients.get(owner, patientToken);
    const others = Promise.all([
      this.prescriptions.checkFillable(owner, patientToken, medications.map((m) => m.prescription_token), now, (i) => `medications.${i}.prescription_token`),
      this.insurances.tokensOfPatient(patientToken, namedInsurances),
      input.replacement_order === undefined ? true : this.fillRequests.existsFor(owner, input.replacement_order),
    ]);
    others.catch(() => undefined); // a refused patient is the answer; the other reads are dropped
    const patient = await reading;
    const [checked, ownInsurances, replacementExists] = await others;

    const { byToken } = checked;
    const errors: ValidationErrorItem[] = [...checked.errors];
    // A refill before the earliest date it is allowed is held until the latest such date of its prescriptions.
    let heldUntil: Date | null = null;
    for (const rx of byToken.values()) {
      const earliest = this.prescriptions.earliestRefill(rx, this.earlyRefillTolerance);
      if (earliest && earliest > now && (!heldUntil || earliest > heldUntil)) heldUntil = earliest;
    }
    plans.forEach((p, i) => {
      if (p.insurance_token && !ownInsurances.has(p.insurance_token)) {
        errors.push({ key: `insurances.${i}.insurance_token`, message: 'does not exist' });
      }
    });
    if (!replacementExists) errors.push({ key: 'replacement_order', message: 'does not exist' });
    if (errors.length) throw validationFailed(errors);
    return { patientToken: patient.token, byToken, heldUntil };
  }

  /**
   * Submits a checked fill request in the caller's unit of work: fills each prescription
   * (refused when a concurrent fill took its last refill), turns the held request (`held`),
   * if any, into a submitted one under its own token, then stores the insurance records its
   * card fields describe, the request, its fills and its copay requests (on PostgreSQL one
   * statement), and starts its lifecycle.
   */
  async submit(uow: UnitOfWork, owner: Owner, input: FillRequestCreate, checked: CheckedFillRequest, now: Date, held?: FillRequestRow): Promise<FillRequestRow> {
    const createdAt = now.toISOString();
    const plans = input.insurances ?? [];
    // Card fields without a token become an insurance record of the patient; the request names every plan by token.
    const { tokens: planTokens, inserts: insuranceInserts } = this.insurances.recording(uow.trx, owner, checked.patientToken, plans, createdAt);
    const submitted: FillRequestCreate = { ...input, ...(input.insurances ? { insurances: planTokens.map((t) => ({ insurance_token: t })) } : {}) };
    const status = input.check_in ? 'triage' : 'pending';
    const row = held ? { ...this.newRow(owner, submitted, checked.patientToken, status, held.created_at), token: held.token, updated_at: createdAt } : this.newRow(owner, submitted, checked.patientToken, status, createdAt);
    const fills: FillRequestMedicationRow[] = [];
    for (const [i, m] of (input.medications ?? []).entries()) {
      const outcome = await this.prescriptions.fill(uow.trx, checked.byToken.get(m.prescription_token)!, now);
      if ('refused' in outcome) throw validationFailed([notFillable(i, outcome.refused)]);
      const { fill_number, quantity, days_supply, refills_remaining, quantity_remaining } = outcome.filled;
      fills.push({ fill_request_token: row.token, position: i, prescription_token: m.prescription_token, fill_number, quantity, days_supply, refills_remaining, quantity_remaining });
    }
    if (held && !(await this.fillRequests.submitHeld(row, uow.trx))) throw new LifecycleError('NOT_PENDING', `fill request ${row.token} is no longer held`);
    const primaryPlan = input.patient_payment_type === 'insurance' ? planTokens[0] : undefined;
    await executeInserts(uow.trx, [
      ...insuranceInserts,
      ...this.fillRequests.inserts(held ? undefined : row, fills, uow.trx),
      ...(primaryPlan ? this.copayRequests.opening(uow.trx, owner, { fillRequestToken: row.token, patientToken: checked.patientToken, insuranceToken: primaryPlan, createdAt }, fills) : []),
      ...uow.startedInserts(owner, 'fill_request', row.token, input.simulation),
    ]);
    for (const hook of this.accepted) await hook(uow, owner, row, submitted);
    return row;
  }

  /** Runs `hook` in the unit of work of every fill request submitted (auto-refill consent enrols its prescriptions). */
  onAccepted(hook: AcceptedHook): void {
    this.accepted.push(hook);
  }

  /** The request as stored: the body as answered by the read (defaults applied), nothing dispensed yet. */
  private newRow(owner: Owner, input: FillRequestCreate, patientToken: string, status: string, createdAt: string): FillRequestRow {
    const shippingMethod = input.shipping_method ?? 'usps_first';
    // Held requests keep card fields until submitted (then they become insurance records named by token).
    // A held request keeps its sandbox `simulation` until submitted (its schedule keeps it then).
    // Copied key by key: a rest and a spread of the parsed body (a dictionary) took 6-7 µs
    // with its JSON, against 4 so (2.8 of them the JSON itself).
    const payload: Record<string, unknown> = {};
    for (const key in input) if (key !== 'simulation') payload[key] = input[key as keyof FillRequestCreate];
    if (status === 'scheduled' && input.simulation) payload.simulation = input.simulation;
    payload.shipping_method = shippingMethod;
    return {
      token: recordToken(),
      ...ownerColumns(owner),
      patient_token: patientToken,
      status,
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
  }

  /** The body of the owner's latest fill request of this prescription, as stored (defaults applied, plans by token). */
  async latestBodyFor(owner: Owner, prescription: { token: string; patient_token: string }): Promise<FillRequestCreate | undefined> {
    const row = await this.fillRequests.latestForPrescription(owner, prescription);
    return row && (JSON.parse(row.payload) as FillRequestCreate);
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
