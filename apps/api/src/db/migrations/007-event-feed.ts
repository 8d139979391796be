import type { Kysely, Migration } from 'kysely';

/**
 * Indexes of the event feed (`GET /v1/webhook_events`), which answers a customer's events
 * of one environment in time order (`timestamp`, then `sequence`), optionally of one type,
 * with one status or of one request.
 */
export const eventFeed: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createIndex('events_feed_by_time')
      .on('events')
      .columns(['customer_id', 'environment', 'timestamp', 'sequence'])
      .execute();
    await db.schema
      .createIndex('events_feed_by_type_time')
      .on('events')
      .columns(['customer_id', 'environment', 'callback_type', 'timestamp', 'sequence'])
      .execute();
    await db.schema
      .createIndex('events_feed_by_status_time')
      .on('events')
      .columns(['customer_id', 'environment', 'status', 'timestamp', 'sequence'])
      .execute();
    await db.schema.createIndex('events_by_request').on('events').columns(['request_id']).execute();
  },
};
