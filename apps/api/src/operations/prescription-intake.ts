import type { Owner } from '../auth/principal.js';
import type { PrescriptionsTable } from '../db/tables.js';
import { nowIso, randomToken } from '../tokens.js';

/** How a prescription reached the pharmacy (the prescription's `origin`). */
export type PrescriptionOrigin = 'electronic' | 'transfer' | 'direct_transfer';

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

export const PRESCRIPTION_DEFAULTS = {
  quantity: 30,
  days_supply: 30,
  refills: 2,
  medication_sig: 'Take as directed',
} as const;

/** Seven-digit prescription numbers, as the pharmacy system issues them. */
function rxNumber(): string {
  return String(6_000_000 + Math.floor(Math.random() * 3_999_999));
}

function isoOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  const date = new Date(compact ? `${compact[1]}-${compact[2]}-${compact[3]}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The row of a newly received, active prescription of a patient. */
export function newPrescription(
  owner: Owner,
  patientToken: string,
  input: PrescriptionInput,
  origin: PrescriptionOrigin,
): PrescriptionsTable {
  const now = nowIso();
  const quantity = input.quantity ?? PRESCRIPTION_DEFAULTS.quantity;
  const refills = input.refills ?? PRESCRIPTION_DEFAULTS.refills;
  const written = isoOrNull(input.written_date) ?? now;
  const expiration = new Date(written);
  expiration.setUTCFullYear(expiration.getUTCFullYear() + 1);
  return {
    token: randomToken(),
    customer_id: owner.customerId,
    environment: owner.environment,
    patient_token: patientToken,
    rx_number: rxNumber(),
    status: 'active',
    is_refill: 0,
    medication_name: input.medication_name,
    medication_sig: input.medication_sig ?? PRESCRIPTION_DEFAULTS.medication_sig,
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
    last_filled_date: isoOrNull(input.last_filled_date),
    expiration_date_utc: expiration.toISOString(),
    days_supply: String(input.days_supply ?? PRESCRIPTION_DEFAULTS.days_supply),
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
