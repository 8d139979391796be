import type { Kysely, Migration } from 'kysely';

/** Prescription details of seed 2.3, transfer requests, direct transfers and prescribers. */
export const transfers: Migration = {
  async up(_db: Kysely<any>) {},
};
