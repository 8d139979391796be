import type { Owned } from '../db/ownership.js';

export type DirectTransferStatus = 'pending' | 'accepted' | 'rejected';

/** A direct transfer (seed 2.5); the submitted objects are kept as JSON, unchanged. */
export interface DirectTransfersTable extends Owned {
  token: string;
  patient_token: string;
  prescriber_token: string;
  status: DirectTransferStatus;
  prescriber: string;
  transfer_from: string;
  transfer_to: string;
  prescription: string;
  /** The prescription created once `accepted`. */
  prescription_token: string | null;
  rejection_message: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    direct_transfers: DirectTransfersTable;
  }
}
