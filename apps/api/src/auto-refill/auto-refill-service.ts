import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { now as clockNow } from '../clock.js';
import { ownerColumns, ownerOfRow, visibleTo } from '../db/ownership.js';
import { HttpError, invalidField, notFound, notOwner } from '../errors.js';
import type { UnitOfWork, UnitsOfWork } from '../events/unit-of-work.js';
import type { FillRequestRow } from '../fill-requests/fill-request-repository.js';
import type { FillRequestCreate, FillRequestService } from '../fill-requests/fill-request-service.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PrescriptionRow } from '../prescriptions/prescription-repository.js';
import type { PrescriptionService } from '../prescriptions/prescription-service.js';
import type { ScheduledActionRepository, ScheduledActionRow } from '../scheduled-fills/scheduled-action-repository.js';
import type { ScheduledActions } from '../scheduled-fills/scheduled-actions.js';
import { nowIso } from '../tokens.js';
import { refillSubmitted, subscriptionEnded } from './auto-refill-events.js';
import type { AutoRefillRepository } from './auto-refill-repository.js';
import type { AutoRefillRow, RefillSettings } from './auto-refill-tables.js';

type Schemas = components['schemas'];
type AutoRefillCreate = Schemas['AutoRefillCreate'];

const DAY_MS = 86_400_000;
const DEFAULT_LIMIT = 20;
const NOT_FOUND = 'Auto-refill subscription not found.';
const CANCELED_BY_CUSTOMER = 'Canceled by the customer.';
/** The fields a refill's destination needs (FillRequestCreate requires them all). */
const DESTINATION = ['address_to_name', 'address_to_street1', 'address_to_city', 'address_to_state', 'address_to_zip', 'address_to_phone', 'address_to_email'] as const;

/** A subscription with what its answers show: the prescription and the pending refill. */
export interface AutoRefillRecord {
  row: AutoRefillRow;
  rx: PrescriptionRow | undefined;
  pending: ScheduledActionRow | undefined;
}

export interface AutoRefillPage {
  rows: AutoRefillRow[];
  nextPageToken: string | null;
  total: number;
}

/**
 * Auto-refill subscriptions: subscribed by the customer (or by consent on a fill request),
 * read, listed, canceled, moved (early refill, skip), and each cycle performed by the
 * scheduler: a fill request of the prescription, never before the refill is allowed, once.
 */
export class AutoRefills {
  constructor(
    private readonly repository: AutoRefillRepository,
    private readonly actions: ScheduledActionRepository,
    private readonly scheduledActions: ScheduledActions,
    private readonly fillRequests: FillRequestService,
    private readonly prescriptions: PrescriptionService,
    private readonly patients: PatientService,
    private readonly units: UnitsOfWork,
    private readonly earlyRefillTolerance: number,
  ) {}

  /** Subscribes a prescription, with the settings of its latest fill request overridden by `body`. */
  async create(owner: Owner, prescriptionToken: string, body: AutoRefillCreate | undefined, requestId: string): Promise<AutoRefillRecord> {
    const rx = await this.prescriptions.get(owner, prescriptionToken);
    const now = clockNow();
    const reason = this.prescriptions.unfillableReason(rx, now);
    if (reason) throw invalidField('prescription_token', `is not fillable: it ${reason}`);
    const { interval_days: interval, ...overrides } = body ?? {};
    const latest = await this.fillRequests.latestBodyFor(owner, rx);
    const settings = refillSettings(latest, overrides);
    const intervalDays = interval ?? this.prescriptions.daysSupply(rx);
    const first = rx.last_filled_date ? Math.max(now.getTime(), Date.parse(rx.last_filled_date) + intervalDays * DAY_MS) : now.getTime();
    const row = await this.units.run(requestId, (uow) => this.subscribe(uow, owner, rx, settings, intervalDays, new Date(first), null));
    if (!row) throw invalidField('prescription_token', 'already has an active auto-refill subscription');
    return this.record(row);
  }

  /**
   * Subscribes the prescriptions a submitted fill request carries consent for
   * (`patient_consent.auto_refill`), in its unit of work: each refill after this one is due
   * `interval` (its days supply) later. A prescription already subscribed keeps its subscription.
   */
  async enrolByConsent(uow: UnitOfWork, owner: Owner, request: FillRequestRow, submitted: FillRequestCreate): Promise<void> {
    const consenting = (submitted.medications ?? []).filter((m) => m.patient_consent?.auto_refill);
    if (consenting.length === 0) return;
    const settings = refillSettings(submitted, {});
    const rxs = await this.prescriptions.findMany(consenting.map((m) => m.prescription_token), uow.trx);
    const now = clockNow().getTime();
    for (const m of consenting) {
      const rx = rxs.find((r) => r.token === m.prescription_token);
      if (!rx) continue;
      const interval = this.prescriptions.daysSupply(rx);
      await this.subscribe(uow, owner, rx, settings, interval, new Date(now + interval * DAY_MS), JSON.stringify(m.patient_consent!.auto_refill));
    }
    void request;
  }

  async get(owner: Owner, prescriptionToken: string): Promise<AutoRefillRecord> {
    return this.record(await this.visible(owner, prescriptionToken));
  }

  async list(owner: Owner, params: { limit?: number; next?: string }, patientToken?: string): Promise<AutoRefillPage> {
    if (patientToken !== undefined) await this.patients.get(owner, patientToken);
    const limit = params.limit ?? DEFAULT_LIMIT;
    const scope = { owner, list: patientToken === undefined ? 'auto_refills' : `auto_refills:${patientToken}` };
    const cursor = params.next === undefined ? undefined : decodeCursor(scope, params.next);
    const [rows, total] = await Promise.all([
      this.repository.page(owner, patientToken, cursor && { created_at: cursor.after, id: Number(cursor.token) }, limit + 1),
      this.repository.count(owner, patientToken),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { rows: page, nextPageToken: rows.length > limit && last ? encodeCursor(scope, { after: last.created_at, token: String(last.id) }) : null, total };
  }

  /** Cancels the subscription and its pending refill; an ended one is answered unchanged. */
  async cancel(owner: Owner, prescriptionToken: string, requestId: string): Promise<AutoRefillRow> {
    const sub = await this.visible(owner, prescriptionToken);
    if (sub.status !== 'active') return sub;
    const at = nowIso();
    await this.units.run(requestId, async (uow) => {
      // The pending action first, then the subscription: the order the scheduler locks them
      // in when it performs a cycle, so the two never deadlock. A cycle performed meanwhile
      // leaves the next one pending: that one is canceled too.
      const seen = new Set<string>();
      for (let pending = await this.actions.pendingOfAutoRefill(sub.id, uow.trx); pending && !seen.has(pending.id); pending = await this.actions.pendingOfAutoRefill(sub.id, uow.trx)) {
        seen.add(pending.id);
        await this.actions.finish(pending.id, 'CANCELLED', { at, reason: CANCELED_BY_CUSTOMER }, uow.trx);
      }
      await this.repository.end(sub.id, CANCELED_BY_CUSTOMER, at, uow.trx);
    });
    return { ...sub, status: 'canceled', cancel_reason: CANCELED_BY_CUSTOMER, canceled_at: at, updated_at: at };
  }

  /** Moves the next refill to now (the scheduler still waits for the earliest allowed date); answers its action. */
  async early(owner: Owner, prescriptionToken: string, requestId: string): Promise<ScheduledActionRow> {
    return this.move(owner, prescriptionToken, requestId, () => clockNow().getTime());
  }

  /** Moves the next refill one interval later. */
  async skip(owner: Owner, prescriptionToken: string, requestId: string): Promise<AutoRefillRecord> {
    const action = await this.move(owner, prescriptionToken, requestId, (pending, sub) => Date.parse(pending.submit_on) + sub.interval_days * DAY_MS);
    return this.record((await this.repository.findById(action.auto_refill_id!))!);
  }

  /**
   * The scheduler's performer for `AUTO_REFILL`: submits the refill of the action's cycle
   * and schedules the next. Not due yet (too soon): moved to the earliest allowed date. The
   * refill cannot be made (no refills left, expired, transferred...): the subscription
   * ends, with an `AUTO_REFILL` error event saying why.
   */
  async performCycle(action: ScheduledActionRow): Promise<void> {
    const owner = ownerOfRow(action);
    const requestId = `sched_${action.id}`;
    const sub = await this.repository.findById(action.auto_refill_id!);
    if (!sub || sub.status !== 'active') {
      await this.units.run(requestId, (uow) => this.actions.finish(action.id, 'CANCELLED', { at: nowIso(), reason: 'The subscription was canceled.' }, uow.trx));
      return;
    }
    const now = clockNow();
    const [rx] = await this.prescriptions.findMany([sub.prescription_token]);
    const reason = rx ? this.prescriptions.unfillableReason(rx, now) : 'no longer exists';
    if (reason || !rx) return this.end(action, sub, `The prescription ${reason}.`, requestId);
    const earliest = this.prescriptions.earliestRefill(rx, this.earlyRefillTolerance);
    if (earliest && earliest > now) {
      await this.actions.reschedule(action.id, earliest.toISOString(), nowIso());
      return;
    }
    const input: FillRequestCreate = { ...(JSON.parse(sub.settings) as RefillSettings), patient_token: sub.patient_token, medications: [{ prescription_token: sub.prescription_token }] };
    let checked;
    try {
      checked = await this.fillRequests.check(owner, input, now);
    } catch (error) {
      if (error instanceof HttpError) return this.end(action, sub, `The refill was refused: ${error.message}.`, requestId);
      throw error;
    }
    if (checked.heldUntil && checked.heldUntil > now) {
      await this.actions.reschedule(action.id, checked.heldUntil.toISOString(), nowIso());
      return;
    }
    const cycle = action.cycle!;
    const next = new Date(now.getTime() + sub.interval_days * DAY_MS).toISOString();
    try {
      await this.units.run(requestId, async (uow) => {
        // First, so that of two processes performing this action the second does nothing.
        if (!(await this.actions.finish(action.id, 'COMPLETE', { at: now.toISOString() }, uow.trx))) return;
        const row = await this.fillRequests.submit(uow, owner, input, checked, now);
        await this.actions.setFillRequest(action.id, row.token, uow.trx);
        await this.repository.recordRefill(sub.id, cycle, row.token, now.toISOString(), uow.trx);
        await this.scheduledActions.schedule(uow, owner, { action_type: 'AUTO_REFILL', submit_on: next, auto_refill_id: sub.id, cycle: cycle + 1 });
        await uow.emit(owner, refillSubmitted(sub, cycle, row.token, next));
      });
    } catch (error) {
      if (error instanceof HttpError) return this.end(action, sub, `The refill was refused: ${error.message}.`, requestId);
      throw error;
    }
  }

  /** Ends the subscription because the refill of the action's cycle cannot be made. */
  private async end(action: ScheduledActionRow, sub: AutoRefillRow, reason: string, requestId: string): Promise<void> {
    const at = nowIso();
    await this.units.run(requestId, async (uow) => {
      if (!(await this.actions.finish(action.id, 'CANCELLED', { at, reason: reason.slice(0, 255) }, uow.trx))) return;
      if (await this.repository.end(sub.id, reason.slice(0, 255), at, uow.trx)) await uow.emit(ownerOfRow(sub), subscriptionEnded(sub, action.cycle!, reason));
    });
  }

  private async move(owner: Owner, prescriptionToken: string, requestId: string, to: (pending: ScheduledActionRow, sub: AutoRefillRow) => number): Promise<ScheduledActionRow> {
    const sub = await this.visible(owner, prescriptionToken);
    const pending = sub.status === 'active' ? await this.actions.pendingOfAutoRefill(sub.id) : undefined;
    if (!pending) throw invalidField('prescription_token', 'has no active auto-refill subscription');
    const submitOn = new Date(to(pending, sub)).toISOString();
    const at = nowIso();
    const moved = await this.units.run(requestId, (uow) => this.actions.reschedule(pending.id, submitOn, at, uow.trx));
    if (!moved) throw invalidField('prescription_token', 'has a refill being submitted now; try again');
    return { ...pending, submit_on: submitOn, updated_at: at };
  }

  /** A new active subscription and the action of its first refill; undefined when the prescription has an active one already. */
  private async subscribe(uow: UnitOfWork, owner: Owner, rx: PrescriptionRow, settings: RefillSettings, intervalDays: number, first: Date, consent: string | null): Promise<AutoRefillRow | undefined> {
    const at = nowIso();
    const values = {
      ...ownerColumns(owner),
      prescription_token: rx.token,
      patient_token: rx.patient_token,
      status: 'active' as const,
      settings: JSON.stringify(settings),
      shipping_method: settings.shipping_method ?? 'usps_first',
      metadata: settings.metadata ?? null,
      consent,
      interval_days: intervalDays,
      cycle: 0,
      last_fill_request_token: null,
      cancel_reason: null,
      created_at: at,
      updated_at: at,
      canceled_at: null,
    };
    const id = await this.repository.insertActive(values, uow.trx);
    if (id === undefined) return undefined;
    await this.scheduledActions.schedule(uow, owner, { action_type: 'AUTO_REFILL', submit_on: first.toISOString(), auto_refill_id: id, cycle: 1 });
    return { ...values, id };
  }

  private async record(row: AutoRefillRow): Promise<AutoRefillRecord> {
    const [[rx], pending] = await Promise.all([this.prescriptions.findMany([row.prescription_token]), row.status === 'active' ? this.actions.pendingOfAutoRefill(row.id) : undefined]);
    return { row, rx, pending };
  }

  private async visible(owner: Owner, prescriptionToken: string): Promise<AutoRefillRow> {
    await this.prescriptions.get(owner, prescriptionToken);
    const sub = await this.repository.findForPrescription(prescriptionToken);
    return visibleTo(sub, owner, { notFound: () => notFound(NOT_FOUND), otherCustomer: () => notOwner('Prescription does not belong to this customer.') });
  }
}

/**
 * How each refill is submitted: the latest fill request's payment, destination, shipping,
 * survey and metadata, with the body's fields over them; refused when payment or
 * destination is missing from both.
 */
function refillSettings(latest: FillRequestCreate | undefined, overrides: Omit<AutoRefillCreate, 'interval_days'>): RefillSettings {
  const { patient_token: _p, medications: _m, otc_products: _o, replacement_order: _r, check_in: _c, ...base } = latest ?? ({} as Partial<FillRequestCreate>);
  const hasDestination = DESTINATION.some((key) => overrides[key] !== undefined);
  const merged = { ...base, ...(hasDestination ? Object.fromEntries(Object.entries(base).filter(([key]) => !key.startsWith('address_to_'))) : {}), ...overrides } as Partial<RefillSettings>;
  if (overrides.patient_payment_type && overrides.patient_payment_type !== 'insurance' && !overrides.insurances) delete merged.insurances;
  const missing = [...(merged.patient_payment_type ? [] : ['patient_payment_type']), ...DESTINATION.filter((key) => !merged[key])];
  if (missing.length) {
    throw new HttpError(400, {
      statusCode: 400,
      error: 'Bad Request',
      validation_errors: missing.map((key) => ({ key, message: 'is required: the prescription has no fill request to take it from' })),
    });
  }
  return { patient_survey: {}, ...merged } as RefillSettings;
}
