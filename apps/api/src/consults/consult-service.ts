import type { components } from '@pharmacy/contract';
import type { Environment, Owner } from '../auth/principal.js';
import type { BusyInterval, Slot, SlotRequest } from '../care-team/availability.js';
import type { Provider } from '../care-team/care-team.js';
import type { CareTeamIndex } from '../care-team/care-team-index.js';
import type { Db } from '../db/database.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { conflict, forbidden, HttpError, invalidField, LifecycleError, notFound, validationFailed } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import type { PatientCreate, PatientService } from '../patients/patient-service.js';
import { nowIso, recordObjectId } from '../tokens.js';
import { consultEvent } from './consult-events.js';
import { providerSnapshot, type ConsultLifecycle, type Decision } from './consult-lifecycle.js';
import { presentConsult, presentConsultDetail } from './consult-presenter.js';
import type { ConsultFilters, ConsultRepository, ConsultSort } from './consult-repository.js';
import type { ConsultsTable } from './consult-tables.js';
import { now as clockNow, nowMs } from '../clock.js';
import { acceptedSimulation } from '../events/sandbox-simulation.js';

type Schemas = components['schemas'];
type ConsultCreate = Schemas['ConsultCreate'];

/** Where the care team of an environment comes from (care-team-service.ts). */
export interface CareTeamSource {
  index(environment: Environment): Promise<CareTeamIndex>;
  openSlots(request: SlotRequest): Slot[];
}

export interface ScheduleQuery {
  start: string;
  end: string;
  questionnaire: string;
  state: string;
  duration?: number;
}

export type ConsultQuery = ConsultFilters & { skip?: number; page_number?: number; limit?: number; sort?: ConsultSort; direction?: 'asc' | 'desc' };

const CONSULT_NOT_FOUND = 'Consult not found. (You may not be authorized to it)';
const QUESTIONNAIRE_NOT_FOUND = 'Consult questionnaire not found. (You may not be authorized to it)';
const MAX_WINDOW_MS = 31 * 86_400_000;
/** The most slots one schedule answers (the spec's `maxItems`). */
const MAX_SLOTS = 20_000;
const slotTaken = () => conflict('The appointment slot is no longer available.');

/**
 * Consults (seed 4.7) and the schedule they book: open slots computed from the care team
 * of the caller's environment and the appointments already booked (any tenant's: a
 * provider's time is one); consults made, read, listed, canceled, and decided in the
 * sandbox by `simulate`. What providers decide is the lifecycle's (consult-lifecycle.ts).
 */
export class ConsultService {
  constructor(
    private readonly consults: ConsultRepository,
    private readonly careTeams: CareTeamSource,
    private readonly patients: Pick<PatientService, 'get' | 'create'>,
    private readonly units: UnitsOfWork,
    private readonly lifecycle: ConsultLifecycle,
  ) {}

  async questionnaires(environment: Environment): Promise<Schemas['ConsultQuestionnaireList']> {
    const index = await this.careTeams.index(environment);
    return index.careTeam.questionnaires
      .map((q) => ({
        id: q.id,
        name: q.name,
        program: { id: q.program_id, name: index.program(q.program_id)?.name ?? '' },
        default_duration_minutes: q.default_duration_minutes,
        licensed_states: index.licensedStates(q.program_id).slice(0, 60),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The open slots of the window (seed 4.7, part 8): checked, then computed. */
  async schedule(environment: Environment, query: ScheduleQuery): Promise<Slot[]> {
    const start = Date.parse(query.start);
    const end = Date.parse(query.end);
    const now = nowMs();
    const problems = [
      ...(start <= now ? [{ key: 'start', message: 'must be later than now' }] : []),
      ...(end <= start ? [{ key: 'end', message: 'must be later than start' }] : end - start > MAX_WINDOW_MS ? [{ key: 'end', message: 'must be at most 31 days after start' }] : []),
    ];
    if (problems.length) throw validationFailed(problems);
    const index = await this.careTeams.index(environment);
    const questionnaire = index.questionnaire(query.questionnaire);
    if (!questionnaire) throw notFound(QUESTIONNAIRE_NOT_FOUND);
    const providers = index.providersFor(questionnaire.id, query.state);
    const window = { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
    const busy = await this.consults.busy(environment, providers.map((p) => p.id), window.start, window.end);
    const durationMinutes = query.duration ?? questionnaire.default_duration_minutes;
    return this.careTeams.openSlots({ providers, ...window, durationMinutes, busy, now: new Date(now), limit: MAX_SLOTS });
  }

  /** A new consult, booked at a slot of the schedule when it asks for an appointment. */
  async create(owner: Owner, body: ConsultCreate, requestId: string): Promise<Schemas['ConsultCreated']> {
    const simulation = acceptedSimulation(owner, body.simulation);
    const index = await this.careTeams.index(owner.environment);
    const questionnaire = index.questionnaire(body.questionaire);
    if (!questionnaire) throw invalidField('questionaire', 'is not a questionnaire of the care team');
    const state = body.shipping_address.state.toUpperCase();
    const appointment = body.appointment && this.appointmentOf(body.appointment, index.providersFor(questionnaire.id, state));
    const patient = await this.patientOf(owner, body.patient);
    const now = nowIso();
    const consult: ConsultsTable = {
      id: recordObjectId(),
      ...ownerColumns(owner),
      status: 'REVIEW',
      program_id: questionnaire.program_id,
      program_name: index.program(questionnaire.program_id)?.name ?? '',
      questionnaire_id: questionnaire.id,
      patient_token: '',
      state,
      provider_id: null,
      provider: null,
      provider_name: null,
      metadata: body.metadata ?? null,
      payment_type: body.payment_type ?? null,
      notes_to_patient: null,
      appointment_start: appointment?.start ?? null,
      appointment_end: appointment?.end ?? null,
      completed_at: null,
      bundled: 0,
      is_video_consult: body.is_video_consult ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    const patientToken = await this.units.run(requestId, async (uow) => {
      let booked = { ...consult, patient_token: 'token' in patient ? patient.token : await this.patients.create(owner, patient.create, uow.trx) };
      if (appointment) {
        const provider = await this.book(uow.trx, owner.environment, appointment);
        booked = { ...booked, ...providerSnapshot(provider) };
        await this.consults.insert(uow.trx, booked, {
          consult_id: consult.id,
          environment: owner.environment,
          provider_id: provider.id,
          start: appointment.start,
          end: appointment.end,
          canceled_at: null,
        });
      } else {
        await this.consults.insert(uow.trx, booked, null);
      }
      await uow.emit(owner, consultEvent(booked));
      await uow.started(owner, 'consult', consult.id, simulation);
      return booked.patient_token;
    });
    return { consult: consult.id, patient: { patient_token: patientToken }, patient_token: patientToken };
  }

  async get(owner: Owner, id: string) {
    return presentConsultDetail(await this.visible(owner, id));
  }

  async list(owner: Owner, query: ConsultQuery): Promise<Schemas['ConsultList']> {
    if (query.appointment_start_date && query.appointment_end_date && Date.parse(query.appointment_end_date) <= Date.parse(query.appointment_start_date)) {
      throw invalidField('appointment_end_date', 'must be later than appointment_start_date');
    }
    const limit = query.limit ?? 20;
    // Instants compare as the stored form (UTC, milliseconds), whatever offset they were given in.
    const instant = (text: string | undefined) => (text === undefined ? undefined : new Date(text).toISOString());
    const filters = { ...query, appointment_start_date: instant(query.appointment_start_date), appointment_end_date: instant(query.appointment_end_date) };
    const offset = (query.skip ?? 0) + ((query.page_number ?? 1) - 1) * limit;
    const rows = await this.consults.list(owner, filters, query.sort ?? 'created_at', query.direction ?? 'desc', offset, limit);
    return rows.map(presentConsult);
  }

  /** Cancels a consult no provider has decided (the lifecycle's); canceling again changes nothing. */
  async cancel(owner: Owner, id: string, requestId: string): Promise<string> {
    const consult = await this.visible(owner, id);
    if (consult.status === 'canceled') return consult.id;
    await this.refusedAsConflict(() => this.units.run(requestId, (uow) => this.lifecycle.cancel(uow, consult)));
    return consult.id;
  }

  /** The sandbox's `simulate`: a provider's decision, at once. */
  async simulate(owner: Owner, id: string, decision: Decision, notes: string | undefined, requestId: string) {
    if (owner.environment !== 'sandbox') throw forbidden('This operation is available in the sandbox only.');
    const consult = await this.visible(owner, id);
    const done = await this.refusedAsConflict(() =>
      this.units.run(requestId, (uow) => this.lifecycle.decide(uow, consult.id, decision, notes === undefined ? {} : { notes })),
    );
    return { newStatus: done.consult.status, statusFlowFromTo: `${done.consult.from} -> ${done.consult.status}` };
  }

  /** A move the consult's status does not allow answers 409 with the lifecycle's reason. */
  private async refusedAsConflict<T>(move: () => Promise<T>): Promise<T> {
    try {
      return await move();
    } catch (error) {
      if (error instanceof LifecycleError && error.code === 'NOT_PENDING') throw conflict(error.message);
      throw error;
    }
  }

  /** The appointment asked for: its time and length, and the providers who may take it. */
  private appointmentOf(asked: NonNullable<ConsultCreate['appointment']>, licensed: Provider[]) {
    const start = new Date(asked.appt_date).toISOString();
    const end = new Date(Date.parse(start) + (asked.duration ?? 3600) * 1000).toISOString();
    const providers = asked.provider_id ? licensed.filter((p) => p.id === asked.provider_id!.toLowerCase()) : licensed;
    if (asked.provider_id && providers.length === 0) {
      throw invalidField('appointment.provider_id', "is not a provider of the questionnaire's program licensed in the patient's state");
    }
    return { start, end, minutes: Math.round((Date.parse(end) - Date.parse(start)) / 60_000), providers };
  }

  /**
   * Books the appointment with the first of its providers for whom it is an open slot,
   * each provider's calendar held while it is checked (so two bookings of one slot cannot
   * both pass); none free answers 409, a time that is no slot at all 400.
   */
  private async book(trx: Db, environment: Environment, appointment: ReturnType<ConsultService['appointmentOf']>): Promise<Provider> {
    let offered = false;
    const isSlot = (provider: Provider, busy: readonly BusyInterval[]) =>
      this.careTeams.openSlots({ providers: [provider], start: appointment.start, end: appointment.end, durationMinutes: appointment.minutes, busy, now: clockNow() }).some(
        (slot) => slot.start === appointment.start,
      );
    for (const provider of appointment.providers) {
      await this.consults.lockProvider(trx, environment, provider.id);
      if (isSlot(provider, await this.consults.busy(environment, [provider.id], appointment.start, appointment.end, trx))) return provider;
      offered ||= isSlot(provider, []);
    }
    if (offered) throw slotTaken();
    throw invalidField('appointment.appt_date', 'is not an open slot of a provider of the questionnaire (GET /v0/schedule)');
  }

  /**
   * The patient's record: the one named, or what makes one (or matches one) from the data
   * given, made with the consult so that a refused consult leaves no record.
   */
  private async patientOf(owner: Owner, patient: ConsultCreate['patient']): Promise<{ token: string } | { create: PatientCreate }> {
    if (patient.patient_token) {
      try {
        return { token: (await this.patients.get(owner, patient.patient_token)).token };
      } catch (error) {
        if (error instanceof HttpError && error.statusCode < 500) throw invalidField('patient.patient_token', 'is not a known patient');
        throw error;
      }
    }
    const problems = [
      ...(patient.first_name ? [] : [{ key: 'patient.first_name', message: 'is required to make a patient record' }]),
      ...(patient.gender === 'unknown' ? [{ key: 'patient.gender', message: 'must be male or female to make a patient record' }] : []),
    ];
    if (problems.length) throw validationFailed(problems);
    return {
      create: {
      first_name: patient.first_name!,
      last_name: patient.last_name,
      dob: patient.dob.replace(/-/g, ''),
      gender: patient.gender as 'male' | 'female',
      zip: patient.home_zip,
      ...(patient.contacts?.email ? { email: patient.contacts.email } : {}),
      ...(patient.contacts?.phone ? { phone: patient.contacts.phone } : {}),
      },
    };
  }

  private async visible(owner: Owner, id: string): Promise<ConsultsTable> {
    return visibleTo(await this.consults.find(id.toLowerCase()), owner, { notFound: () => notFound(CONSULT_NOT_FOUND) });
  }
}
