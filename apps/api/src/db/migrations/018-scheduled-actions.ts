import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Refills that happen by themselves: auto-refill subscriptions (numbered, as the real
 * platform's `auto_refill_id`) and the scheduled actions that submit fill requests later
 * (a refill held as too soon, each cycle of a subscription). An action is a background job
 * (`locked_until` is its lease); a subscription has at most one action per cycle.
 */
export const scheduledActions = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>) {
    const postgres = dialect === 'postgres';
    let refills = db.schema
      .createTable('auto_refills')
      .addColumn('id', postgres ? 'serial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'));
    for (const column of ['environment', 'prescription_token', 'patient_token', 'status', 'settings', 'shipping_method', 'created_at', 'updated_at']) {
      refills = refills.addColumn(column, 'text', (c) => c.notNull());
    }
    for (const column of ['metadata', 'consent', 'last_fill_request_token', 'cancel_reason', 'canceled_at']) refills = refills.addColumn(column, 'text');
    await refills
      .addColumn('interval_days', 'integer', (c) => c.notNull())
      .addColumn('cycle', 'integer', (c) => c.notNull())
      .execute();
    // One active subscription per prescription (an ended one may be followed by a new one).
    await db.schema.createIndex('auto_refills_active_prescription').unique().on('auto_refills').column('prescription_token').where(sql.ref('status'), '=', 'active').execute();
    await db.schema.createIndex('auto_refills_owner_created').on('auto_refills').columns(['customer_id', 'environment', 'created_at', 'id']).execute();
    await db.schema.createIndex('auto_refills_patient').on('auto_refills').columns(['patient_token', 'created_at', 'id']).execute();

    let actions = db.schema
      .createTable('scheduled_actions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'));
    for (const column of ['environment', 'action_type', 'status', 'submit_on', 'created_at', 'updated_at']) {
      actions = actions.addColumn(column, 'text', (c) => c.notNull());
    }
    for (const column of ['locked_until', 'fill_request_token', 'payload', 'reason', 'origin_request_id']) actions = actions.addColumn(column, 'text');
    await actions
      .addColumn('auto_refill_id', 'integer', (c) => c.references('auto_refills.id'))
      .addColumn('cycle', 'integer')
      .execute();
    // A subscription's cycle is submitted by one action only.
    await db.schema.createIndex('scheduled_actions_cycle').unique().on('scheduled_actions').columns(['auto_refill_id', 'cycle']).execute();
    // The scheduler claims pending actions earliest due first.
    await db.schema.createIndex('scheduled_actions_due').on('scheduled_actions').columns(['status', 'submit_on']).execute();
    await db.schema.createIndex('scheduled_actions_owner_created').on('scheduled_actions').columns(['customer_id', 'environment', 'created_at', 'id']).execute();
    await db.schema.createIndex('scheduled_actions_fill_request').on('scheduled_actions').column('fill_request_token').execute();
  },
});
