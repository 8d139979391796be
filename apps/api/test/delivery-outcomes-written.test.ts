import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import { WebhookDeliveryRepository, type DeliveryOutcome } from '../src/webhook-deliveries/webhook-delivery-repository.js';
import { statementsSent } from './support/sent-statements.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { deliveryOf, recordEvent } from './support/webhook-receiver.js';

/**
 * Delivery outcomes written together (WebhookDeliveryRepository.finishAll): each is kept only
 * while its claim still holds its event, and outcomes alike under one claim (the events of a
 * claim that had no endpoint) are one statement.
 */
const postgres = process.env.TEST_DATABASE === 'postgres';
const owner: Owner = { customerId: 'cus_outcomes', environment: 'sandbox' };
const NO_ENDPOINT: DeliveryOutcome = { delivery_status: 'failed', delivery_status_code: null, delivery_attempts: 0, last_attempt_at: null, next_attempt_at: null };

describe('delivery outcomes written together', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await database.handle.db.insertInto('customers').values({ id: owner.customerId, name: 'Outcomes', tenant_id: 'outcomes', created_at: new Date().toISOString() }).execute();
  });
  afterAll(async () => {
    await database?.dispose();
  });

  it('keeps each outcome whose claim still holds, one statement for outcomes alike, and leaves an event claimed again alone', async () => {
    const db = database.handle.db;
    const claim = new Date(Date.now() + 60_000).toISOString();
    const other = new Date(Date.now() + 90_000).toISOString();
    const [a, b, c, d] = [await recordEvent(db, owner, 1, claim), await recordEvent(db, owner, 2, claim), await recordEvent(db, owner, 3, other), await recordEvent(db, owner, 4, claim)];
    const attemptedAt = new Date().toISOString();
    const delivered: DeliveryOutcome = { delivery_status: 'delivered', delivery_status_code: 200, delivery_attempts: 1, last_attempt_at: attemptedAt, next_attempt_at: null };
    const repository = new WebhookDeliveryRepository(db);
    const { result: kept, sent } = await statementsSent('events', () =>
      db.transaction().execute((trx) =>
        repository.finishAll(
          [
            { id: a.id, claim, outcome: NO_ENDPOINT },
            { id: b.id, claim, outcome: NO_ENDPOINT },
            // Its claim expired and another worker holds it now: not written.
            { id: c.id, claim, outcome: NO_ENDPOINT },
            { id: d.id, claim, outcome: delivered },
          ],
          trx,
        ),
      ),
    );
    expect(kept).toEqual([true, true, false, true]);
    if (postgres) expect(sent.filter((text) => text.startsWith('update'))).toHaveLength(2);
    expect(await deliveryOf(db, a.id)).toMatchObject({ ...NO_ENDPOINT, locked_until: null });
    expect(await deliveryOf(db, b.id)).toMatchObject({ ...NO_ENDPOINT, locked_until: null });
    expect(await deliveryOf(db, c.id)).toMatchObject({ delivery_status: 'pending', delivery_attempts: 0, locked_until: other });
    expect(await deliveryOf(db, d.id)).toMatchObject({ ...delivered, locked_until: null });
  });
});
