import type { components } from '@pharmacy/contract';
import { isFillable } from './fillable.js';
import type { PrescriptionRow } from './prescription-repository.js';
import { now as clockNow } from '../clock.js';

type Schemas = components['schemas'];

/** The list item of seed 2.2. */
export function presentPatientPrescription(rx: PrescriptionRow): components['schemas']['PatientPrescription'] {
  return {
    prescription_token: rx.token,
    fillable: isFillable(rx),
    is_refill: rx.is_refill === 1,
    medication_name: rx.medication_name,
    medication_sig: rx.medication_sig,
    rx_number: rx.rx_number,
    medication_id: rx.medication_id,
    origin: rx.origin,
    prescribed_brand_name: rx.prescribed_brand_name,
    prescribed_drug_strength: rx.prescribed_drug_strength,
    prescribed_generic_name: rx.prescribed_generic_name,
    prescribed_written_name: rx.prescribed_written_name,
    prescribed_quantity: rx.prescribed_quantity,
    prescribed_quantity_unit: rx.prescribed_quantity_unit,
    prescribed_ndc: rx.prescribed_ndc,
    original_prescribed_ndc: rx.original_prescribed_ndc,
    prescriber: rx.prescriber,
    prescriber_npi: rx.prescriber_npi,
    prescriber_order_number: rx.prescriber_order_number,
    date_written: rx.date_written,
    date_filled_utc: rx.date_filled_utc,
    last_filled_date: rx.last_filled_date,
    expiration_date_utc: rx.expiration_date_utc,
    days_supply: rx.days_supply,
    number_of_refills_allowed: rx.number_of_refills_allowed,
    refills_remaining: rx.refills_remaining,
    quantity_remaining: rx.quantity_remaining,
    current_rx_status_text: rx.current_rx_status_text,
  };
}

/** A JSON array of codes as stored; anything else reads as no codes. */
function codes(json: string): string[] {
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === 'string') : [];
  } catch {
    return [];
  }
}

/** The read shape of seed 2.3 (wrapped in `prescription` by the handler). */
export function presentPrescription(rx: PrescriptionRow, now = clockNow()): Schemas['Prescription'] {
  return {
    prescription_token: rx.token,
    rx_number: rx.rx_number,
    fillable: isFillable(rx, now),
    prescribed_brand_name: rx.prescribed_brand_name,
    prescribed_generic_name: rx.prescribed_generic_name,
    prescribed_ndc: rx.prescribed_ndc,
    prescribed_quantity: rx.prescribed_quantity,
    prescribed_written_name: rx.prescribed_written_name,
    prescribed_drug_strength: rx.prescribed_drug_strength,
    prescribed_quantity_unit: rx.prescribed_quantity_unit,
    original_prescribed_ndc: rx.original_prescribed_ndc,
    medication_sig: rx.medication_sig,
    days_supply: rx.days_supply,
    date_written: rx.date_written,
    expiration_date: rx.expiration_date_utc,
    date_filled_utc: rx.date_filled_utc,
    last_filled_date: rx.last_filled_date,
    refills_remaining: rx.refills_remaining,
    quantity_remaining: rx.quantity_remaining,
    number_of_refills_allowed: rx.number_of_refills_allowed,
    is_refill: rx.is_refill === 1,
    is_daw: rx.is_daw === null ? null : rx.is_daw === 1,
    dea_schedule: rx.dea_schedule,
    origin: rx.origin,
    prescriber: rx.prescriber,
    prescriber_npi: rx.prescriber_npi,
    prescriber_token: rx.prescriber_token,
    prescriber_order_number: rx.prescriber_order_number,
    notes: rx.notes,
    // Parts the pharmacy does not know are empty strings (company and street2 may be null).
    prescriber_address: {
      name: rx.prescriber_address_name ?? rx.prescriber ?? '',
      company: rx.prescriber_address_company,
      street1: rx.prescriber_address_street1 ?? '',
      street2: rx.prescriber_address_street2,
      city: rx.prescriber_address_city ?? '',
      state: rx.prescriber_address_state ?? '',
      zip: rx.prescriber_address_zip ?? '',
      country: rx.prescriber_address_country ?? '',
      phone: rx.prescriber_address_phone ?? '',
      email: rx.prescriber_address_email ?? '',
    },
    icd_codes: { icd10: codes(rx.icd10_codes), icd9: codes(rx.icd9_codes) },
    formulary: { on_formulary: rx.on_formulary === 1, formulary_ndc: rx.formulary_ndc },
    current_rx_status_text: rx.current_rx_status_text as Schemas['Prescription']['current_rx_status_text'],
  };
}
