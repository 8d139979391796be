import type { Kysely, Migration } from 'kysely';

/** Fill requests, orders, insurances and copay requests. */
export const fillRequests: Migration = {
  async up(_db: Kysely<any>) {},
};
