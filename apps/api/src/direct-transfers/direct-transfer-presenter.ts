import type { components } from '@pharmacy/contract';
import type { DirectTransferRow } from './direct-transfer-repository.js';

type Schemas = components['schemas'];

/** The designed read of a direct transfer: the submitted objects unchanged, plus its state. */
export function presentDirectTransfer(dt: DirectTransferRow): Schemas['DirectTransfer'] {
  return {
    direct_transfer_token: dt.token,
    status: dt.status,
    patient_token: dt.patient_token,
    created_at: dt.created_at,
    prescriber: JSON.parse(dt.prescriber) as Schemas['DirectTransferPrescriber'],
    prescriber_token: dt.prescriber_token,
    transfer_from: JSON.parse(dt.transfer_from) as Schemas['DirectTransferFrom'],
    transfer_to: JSON.parse(dt.transfer_to) as Schemas['DirectTransferTo'],
    prescription: JSON.parse(dt.prescription) as Schemas['DirectTransferPrescription'],
    prescription_token: dt.prescription_token,
    rejection_message: dt.rejection_message,
  };
}

/** The receipt of a submitted direct transfer; `request_id` is the direct transfer's token. */
export function presentDirectTransferReceipt(dt: DirectTransferRow): Schemas['DirectTransferReceipt'] {
  return {
    request_id: dt.token,
    timestamp: dt.created_at,
    status: 'success',
    details: { direct_transfer_id: dt.token },
  };
}
