import type { Flag } from '../db/database.js';
import type { Owned } from '../db/ownership.js';

/** `pending` until the other party answers, then `completed` or `rejected` (both final). */
export type TransferStatus = 'pending' | 'rejected' | 'completed';

/** A transfer request (seed 2.4). */
export interface TransferRequestsTable extends Owned {
  token: string;
  patient_token: string;
  status: TransferStatus;
  pharmacy_name: string | null;
  pharmacy_phone: string | null;
  pharmacy_fax: string | null;
  prescriber_name: string | null;
  prescriber_phone: string | null;
  prescriber_fax: string | null;
  /** 1 when `medications` was omitted: every prescription that can be transferred is. */
  all_medications: Flag;
  notes: string | null;
  metadata: string | null;
  /** A transfer rejection code, once the whole request is `rejected`. */
  cancel_reason: string | null;
  cancel_reason_other: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Outcome of one medication of a transfer request. */
type TransferMedicationStatus = 'pending' | 'transferred' | 'rejected';

/**
 * One medication of a transfer request: one per name requested, or, for a request of every
 * medication, one per prescription the other party reports. Its outcome is recorded here:
 * the prescription created once transferred, or the rejection code once rejected.
 */
export interface TransferMedicationsTable {
  token: string;
  transfer_token: string;
  /** Order within the request (the order the names were sent). */
  position: number;
  medication_name: string;
  status: TransferMedicationStatus;
  rejection_reason: string | null;
  rejection_reason_other: string | null;
  /** The prescription created here, once transferred. */
  prescription_token: string | null;
  /** What the other party reported: when the prescription was last filled there (ISO 8601). */
  source_last_filled_date: string | null;
  /** What the other party reported: refills already filled there. */
  source_refills_filled: string | null;
  created_at: string;
  updated_at: string;
}

/** What happened on a transfer request so far (contacts, answers), oldest first. */
export interface TransferMessagesTable {
  transfer_token: string;
  position: number;
  message: string;
  created_at: string;
}

declare module '../db/database.js' {
  interface Database {
    transfer_requests: TransferRequestsTable;
    transfer_medications: TransferMedicationsTable;
    transfer_messages: TransferMessagesTable;
  }
}
