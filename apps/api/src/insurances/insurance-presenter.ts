import type { components } from '@pharmacy/contract';
import type { InsuranceRow } from './insurance-repository.js';

/** Every character but the last four replaced by `*`; four characters or fewer masked whole. */
export function maskCardholderId(id: string): string {
  if (id.length <= 4) return '*'.repeat(id.length);
  return '*'.repeat(id.length - 4) + id.slice(-4);
}

export function presentInsurance(row: InsuranceRow): components['schemas']['Insurance'] {
  return {
    insurance_token: row.token,
    patient_token: row.patient_token,
    cardholder_id: maskCardholderId(row.cardholder_id),
    rx_bin: row.rx_bin,
    rx_group: row.rx_group,
    pcn: row.pcn,
    phone_number: row.phone_number,
    insurance_card_image_url: row.insurance_card_image_url,
    created_at: row.created_at,
  };
}
