import type { Kysely, Migration } from 'kysely';

/**
 * A sandbox lifecycle keeps the `simulation` object its create sent (JSON, as validated),
 * so each later step of the simulated pharmacy, lab or provider plays the outcome it asked
 * for. Rows made before this migration, and creates that sent none, have none.
 */
export const sandboxSimulations: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('sandbox_steps').addColumn('simulation', 'text').execute();
  },
};
