import type { components } from '@pharmacy/contract';
import type { PrescriptionRow } from './prescription-repository.js';

/**
 * A prescription can be filled while it is active, not expired and has quantity left.
 * `refills_remaining` counts refills after the current fill, so quantity is the measure.
 */
export function isFillable(rx: PrescriptionRow, now = new Date()): boolean {
  if (rx.status !== 'active') return false;
  if (rx.expiration_date_utc && new Date(rx.expiration_date_utc) <= now) return false;
  return rx.quantity_remaining > 0;
}

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
