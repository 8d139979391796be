import type { components } from '@pharmacy/contract';
import type { PharmacyIdentity } from '../config.js';
import type { EventDetails, NewEvent } from '../events/event-outbox.js';
import type { PrescriptionsTable } from './prescription-tables.js';

type Schemas = components['schemas'];

/**
 * `NOTIFY_RX`: a prescription received and processed (electronic, transferred or directly
 * transferred), exactly as spec/webhooks describes its `details`; tokens, never personal data.
 */
export function notifyRx(
  rx: PrescriptionsTable,
  pharmacy: PharmacyIdentity,
  extra: { duplicates?: string[] } = {},
): NewEvent {
  const details: EventDetails<Schemas['NotifyRxEvent']> = {
    medication_name: rx.medication_name,
    prescriber: rx.prescriber,
    prescription_token: rx.token,
    patient_token: rx.patient_token,
    patient_token_duplicates: extra.duplicates ?? [],
    merged_patients: [],
    location: pharmacy.location,
    rx_link: `/v1/prescription/${rx.token}`,
  };
  return { callbackType: 'NOTIFY_RX', details };
}
