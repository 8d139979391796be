import type { Kysely, Migration } from 'kysely';

/**
 * Indexes no statement reads go. Migration 002 made them with the transfers, for lookups
 * that were never written: direct transfers are read by token only, transfer requests by
 * token, by owner (`transfer_requests_list`) or by patient, a transfer's medications by their
 * request (`transfer_medications_order`), and no statement looks for prescriptions by
 * prescriber. No foreign key check needs them either: patients, prescribers and
 * prescriptions are never deleted and their tokens never change. Each cost every create of
 * its table a write to its b-tree (a direct transfer wrote four, one of them its own).
 * Found on 2026-11-29 by planning every distinct statement the test suite sent to the
 * embedded database (`explain query plan`, 626 statements): none of these six was in a plan.
 */
export const UNREAD_INDEXES = [
  'direct_transfers_patient',
  'direct_transfers_prescriber',
  'direct_transfers_status',
  'transfer_requests_status',
  'transfer_medications_prescription',
  'prescriptions_prescriber',
] as const;

export const unreadIndexes: Migration = {
  async up(db: Kysely<any>) {
    for (const index of UNREAD_INDEXES) await db.schema.dropIndex(index).execute();
  },
};
