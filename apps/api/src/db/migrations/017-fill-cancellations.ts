import type { Kysely, Migration } from 'kysely';

/**
 * Fill request cancellations (`POST /v1/cancel_request`): one row per item of a fill
 * request canceled at the customer's request, a medication by its prescription token or an
 * OTC product by its SKU (the `item` the request named it by). A table rather than columns
 * of the fills, so that the items of a request held as too soon (which has filled nothing)
 * are canceled the same way. Its key keeps an item from being canceled twice.
 */
export const fillCancellations: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('fill_request_cancellations')
      .addColumn('fill_request_token', 'text', (c) => c.notNull().references('fill_requests.token'))
      .addColumn('item_type', 'text', (c) => c.notNull())
      .addColumn('item', 'text', (c) => c.notNull())
      .addColumn('canceled_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('fill_request_cancellations_pk', ['fill_request_token', 'item_type', 'item'])
      .execute();
  },
};
