import type { Kysely, Migration } from 'kysely';

/**
 * A prescription's fills are found through its patient, not through an index of their own.
 * `fill_request_medications_prescription` put every fill's entry at its prescription's place
 * in the index: a page of its own for each fill of a commit, the largest share of the pages
 * a commit of fill requests wrote (38 of 92 in one measured on the embedded database), for
 * two rare lookups, an auto-refill's enrolment (the prescription's latest fill request) and
 * a cancellation (the prescription's other fills). Every fill of a prescription belongs to
 * a fill request of the prescription's patient (a request fills only its own patient's
 * prescriptions, and a prescription never changes patient), so both lookups go through
 * `fill_requests_patient` and the fills' primary key, reading that patient's requests.
 * Prescriptions are never deleted, so no foreign key check needs the index either.
 */
export const fillsFoundByPatient: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('fill_request_medications_prescription').execute();
  },
};
