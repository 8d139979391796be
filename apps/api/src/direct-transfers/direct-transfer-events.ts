import type { components } from '@pharmacy/contract';
import type { EventDetails, NewEvent } from '../events/event-outbox.js';
import type { PrescriptionsTable } from '../prescriptions/prescription-tables.js';
import type { DirectTransfersTable } from './direct-transfer-tables.js';

/** The events of a direct transfer's lifecycle, as spec/webhooks describes their `details`. */
type Schemas = components['schemas'];

export function directTransferSuccess(dt: DirectTransfersTable, rx: PrescriptionsTable): NewEvent {
  const details: EventDetails<Schemas['DirectTransferSuccessEvent']> = {
    metadata: null,
    message: 'Direct transfer accepted.',
    patient_token: dt.patient_token,
    direct_transfer_token: dt.token,
    prescription_token: rx.token,
  };
  return { callbackType: 'DIRECT_TRANSFER', status: 'success', requestId: dt.token, details };
}

/** The message starts with the rejection notice, then the reason. */
export function directTransferRejectionMessage(reason: string): string {
  const text = reason.trim().replace(/\.$/, '');
  return `Direct transfer rejected: ${text}.`;
}

export function directTransferError(dt: DirectTransfersTable, message: string): NewEvent {
  const details: EventDetails<Schemas['DirectTransferErrorEvent']> = {
    metadata: null,
    message,
    patient_token: dt.patient_token,
    direct_transfer_token: dt.token,
  };
  return { callbackType: 'DIRECT_TRANSFER', status: 'error', requestId: dt.token, details };
}
