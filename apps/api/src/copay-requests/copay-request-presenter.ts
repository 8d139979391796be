import type { components } from '@pharmacy/contract';
import type { CopayRequestRow } from './copay-request-repository.js';

export function presentCopayRequest(row: CopayRequestRow): components['schemas']['CopayRequest'] {
  return {
    request_id: row.token,
    status: row.status as components['schemas']['CopayRequestStatus'],
    patient_token: row.patient_token,
    prescription_token: row.prescription_token,
    insurance_token: row.insurance_token,
    copay_amount: row.copay_amount_cents === null ? null : row.copay_amount_cents / 100,
    currency: 'USD',
    days_supply: row.days_supply,
    quantity: row.quantity,
    message: row.message,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}
