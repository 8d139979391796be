import type { Kysely, Migration } from 'kysely';

/**
 * `sandbox_steps_subject` goes: no statement looks a step up by its subject. The simulated
 * pharmacy claims due steps through `sandbox_steps_due` and moves each by its id; a
 * lifecycle that staff moved on meanwhile ends at its next step, which finds the record no
 * longer where the script expects it. Yet every sandbox create with a lifecycle (a fill
 * request, a transfer, a lab order, a consult) put an entry in it, and the embedded
 * database's commit of a batch of fill requests rewrote its last pages each time.
 */
export const sandboxStepsSubjectIndex: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('sandbox_steps_subject').execute();
  },
};
