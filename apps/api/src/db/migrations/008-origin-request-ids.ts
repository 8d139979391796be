import type { Kysely, Migration } from 'kysely';

/**
 * Jobs carry the request that caused them: the events a request's actions record (their
 * deliveries log it) and the sandbox steps its creates schedule (each step logs it, and the
 * events a step records carry it on). Rows made before this migration have none.
 */
export const originRequestIds: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('events').addColumn('origin_request_id', 'text').execute();
    await db.schema.alterTable('sandbox_steps').addColumn('origin_request_id', 'text').execute();
  },
};
