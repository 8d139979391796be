import type { Owner } from '../auth/principal.js';
import type { PharmacyIdentity } from '../config.js';
import { isoDateTimeOrNull } from '../dates.js';
import { LifecycleError } from '../errors.js';
import { ownerColumns } from '../db/ownership.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import type { PatientService } from '../patients/patient-service.js';
import { nowIso, recordToken } from '../tokens.js';
import { notifyRx } from './prescription-events.js';
import type { PrescriptionRepository, PrescriptionRow } from './prescription-repository.js';

/** How a prescription reached the pharmacy (the prescription's `origin`). */
type PrescriptionOrigin = 'electronic' | 'transfer' | 'direct_transfer';

/** What the pharmacy records of a prescription it receives (by e-prescription, transfer or direct transfer). */
export interface PrescriptionInput {
  medication_name: string;
  medication_sig?: string | null;
  /** Quantity per fill. */
  quantity?: number;
  quantity_unit?: string | null;
  days_supply?: number;
  /** Refills remaining on the prescription as received. */
  refills?: number;
  prescribed_ndc?: string | null;
  brand_name?: string | null;
  generic_name?: string | null;
  drug_strength?: string | null;
  prescriber?: string | null;
  prescriber_npi?: string | null;
  /** ISO 8601 date or date-time; today when absent. */
  written_date?: string | null;
  /** When last filled elsewhere (ISO 8601), for transferred prescriptions. */
  last_filled_date?: string | null;
  /** 0 when not controlled, 2 to 5 for schedules II to V. */
  dea_schedule?: number;
  is_daw?: boolean;
  notes?: string | null;
}

const DEFAULTS = { quantity: 30, days_supply: 30, refills: 2, medication_sig: 'Take as directed' } as const;

/**
 * The read schemas' bounds of a prescription (`prescribed_quantity` at most 100,000,
 * `number_of_refills_allowed` at most 99), which every source is held to, so that
 * `quantity_remaining`, the quantity per fill times the fills allowed, stays within its own
 * (10,000,000). The API's inputs are bounded by their schemas; staff input by this check.
 */
const BOUNDS = { quantity: { min: 1, max: 100_000 }, refills: { min: 0, max: 99 } } as const;

function bounded(field: keyof typeof BOUNDS, value: number): number {
  const { min, max } = BOUNDS[field];
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new LifecycleError('INVALID', `The prescription's ${field} must be a whole number from ${min} to ${max}, got ${value}.`);
  }
  return value;
}

/** Seven-digit prescription numbers, as the pharmacy system issues them. */
function rxNumber(): string {
  return String(6_000_000 + Math.floor(Math.random() * 3_999_999));
}

/** The row of a newly received, active prescription of a patient; it expires a year after it was written. */
function newPrescription(owner: Owner, patientToken: string, input: PrescriptionInput, origin: PrescriptionOrigin): PrescriptionRow {
  const now = nowIso();
  const quantity = bounded('quantity', input.quantity ?? DEFAULTS.quantity);
  const refills = bounded('refills', input.refills ?? DEFAULTS.refills);
  const written = isoDateTimeOrNull(input.written_date) ?? now;
  const expiration = new Date(written);
  expiration.setUTCFullYear(expiration.getUTCFullYear() + 1);
  return {
    token: recordToken(),
    ...ownerColumns(owner),
    patient_token: patientToken,
    rx_number: rxNumber(),
    status: 'active',
    is_refill: 0,
    medication_name: input.medication_name,
    medication_sig: input.medication_sig ?? DEFAULTS.medication_sig,
    medication_id: null,
    origin,
    prescribed_brand_name: input.brand_name ?? null,
    prescribed_drug_strength: input.drug_strength ?? null,
    prescribed_generic_name: input.generic_name ?? null,
    prescribed_written_name: input.medication_name,
    prescribed_quantity: quantity,
    prescribed_quantity_unit: input.quantity_unit ?? null,
    prescribed_ndc: input.prescribed_ndc ?? null,
    original_prescribed_ndc: null,
    prescriber: input.prescriber ?? null,
    prescriber_npi: input.prescriber_npi ?? null,
    prescriber_order_number: null,
    date_written: written,
    date_filled_utc: null,
    last_filled_date: isoDateTimeOrNull(input.last_filled_date),
    expiration_date_utc: expiration.toISOString(),
    days_supply: String(input.days_supply ?? DEFAULTS.days_supply),
    number_of_refills_allowed: refills,
    refills_remaining: refills,
    quantity_remaining: quantity * (refills + 1),
    current_rx_status_text: null,
    created_at: now,
    is_daw: input.is_daw ? 1 : 0,
    dea_schedule: input.dea_schedule ?? 0,
    notes: input.notes ?? null,
    prescriber_token: null,
    prescriber_address_name: null,
    prescriber_address_company: null,
    prescriber_address_street1: null,
    prescriber_address_street2: null,
    prescriber_address_city: null,
    prescriber_address_state: null,
    prescriber_address_zip: null,
    prescriber_address_country: null,
    prescriber_address_phone: null,
    prescriber_address_email: null,
    icd10_codes: '[]',
    icd9_codes: '[]',
    on_formulary: 0,
    formulary_ndc: null,
  };
}

/** What receiving an electronic prescription answers. */
export interface ElectronicPrescriptionReceived {
  prescription_token: string;
  patient_token: string;
  patient_token_duplicates: string[];
}

/**
 * How prescriptions reach the pharmacy: each one received is stored active and reported by
 * `NOTIFY_RX`, in the unit of work of whatever brought it (an electronic prescription, a
 * transfer's answer, an accepted direct transfer).
 */
export class PrescriptionIntake {
  constructor(
    private readonly prescriptions: PrescriptionRepository,
    private readonly patients: PatientService,
    private readonly pharmacy: PharmacyIdentity,
  ) {}

  /** Stores a received prescription of the patient and records its `NOTIFY_RX`; answers the stored row. */
  async receive(
    uow: UnitOfWork,
    owner: Owner,
    patientToken: string,
    input: PrescriptionInput,
    origin: PrescriptionOrigin,
    extra: { prescriberToken?: string; duplicates?: string[] } = {},
  ): Promise<PrescriptionRow> {
    const rx = { ...newPrescription(owner, patientToken, input, origin), prescriber_token: extra.prescriberToken ?? null };
    await this.prescriptions.insert(rx, uow.trx);
    await uow.emit(owner, notifyRx(rx, this.pharmacy, { duplicates: extra.duplicates }));
    return rx;
  }

  /**
   * An electronic prescription received and matched to the owner's patient: `NOTIFY_RX`
   * names it, with the patient's look-alike records (same names and date of birth, other
   * identity data) as `patient_token_duplicates`. An unknown patient is refused as the
   * patients service refuses it.
   */
  async receiveElectronic(uow: UnitOfWork, owner: Owner, patientToken: string, input: PrescriptionInput): Promise<ElectronicPrescriptionReceived> {
    const patient = await this.patients.get(owner, patientToken, uow.trx);
    const duplicates = await this.patients.lookAlikes(owner, patient, uow.trx);
    const rx = await this.receive(uow, owner, patient.token, input, 'electronic', { duplicates });
    return { prescription_token: rx.token, patient_token: patient.token, patient_token_duplicates: duplicates };
  }
}
