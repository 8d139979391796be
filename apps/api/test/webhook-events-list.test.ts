// Listing webhook events (listWebhookEvents): delivery state, time order, paging, filters by
// timestamp and status, only the caller's events, and the parameters it refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/test-app.js';
import {
  eventRecorder,
  notifyRx,
  production,
  sandbox,
  T,
  TIMESTAMP_SYNTAX,
  transferContacted,
  transferNotContacted,
  type Query,
} from './support/webhook-event-fixtures.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const record = eventRecorder(() => t);

async function list(key: string, query: Query = {}) {
  const { data, error, response } = await t.client(key).GET('/v1/webhook_events', { params: { query } });
  return { data: data!, error: error as any, status: response.status };
}

/** Every page from the first, following `next_page_token`; answers the webhook ids in order. */
async function listAll(key: string, query: Query = {}): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let next: string | undefined;
  let pages = 0;
  do {
    const { data, status } = await list(key, { ...query, ...(next ? { next } : {}) });
    expect(status).toBe(200);
    ids.push(...data.results.map((r) => r.delivery_data.webhook_id!));
    next = data.next_page_token ?? undefined;
    pages++;
  } while (next && pages < 50);
  return { ids, pages };
}

describe('listing webhook events', () => {
  it('answers each event as delivered, in ascending time order, whatever the order they were recorded in', async () => {
    const acme = await t.customer();
    const [late] = await record(sandbox(acme), T + 20, transferContacted('rq1'));
    const [early, sameSecond] = await record(sandbox(acme), T, notifyRx(1), notifyRx(2));
    const [middle] = await record(sandbox(acme), T + 10, transferNotContacted('rq1'));

    const { data, status } = await list(acme.sandbox_api_key);
    expect(status).toBe(200);
    expect(data.results.map((r) => r.delivery_data.webhook_id)).toEqual([early, sameSecond, middle, late]);
    expect(data.next_page_token).toBeNull();
    expect(data.results[0]!.payload).toEqual({
      callback_type: 'NOTIFY_RX',
      details: notifyRx(1).details,
      timestamp: T,
    });
    expect(data.results[3]!.payload).toEqual({
      request_id: 'rq1',
      callback_type: 'TRANSFER_CONTACT',
      status: 'success',
      details: transferContacted('rq1').details,
      timestamp: T + 20,
    });
    for (const { delivery_data } of data.results) {
      expect(['pending', 'retrying', 'delivered', 'failed']).toContain(delivery_data.status);
      expect(delivery_data.attempts).toBeGreaterThanOrEqual(0);
    }
  });

  it('answers how the delivery went from the delivery state of the event', async () => {
    const acme = await t.customer();
    // The delivery state is set in the unit of work that records the events, so a running
    // delivery worker never sees them pending.
    const [retrying, delivered] = await record(sandbox(acme), T, notifyRx(1), notifyRx(2), async (trx, [first, second]) => {
      await trx
        .updateTable('events')
        .set({
          delivery_status: 'retrying',
          delivery_status_code: 503,
          delivery_attempts: 3,
          last_attempt_at: '2026-01-17T17:09:10.000Z',
          next_attempt_at: '2999-01-01T00:00:00.000Z',
        })
        .where('id', '=', first!)
        .execute();
      await trx
        .updateTable('events')
        .set({ delivery_status: 'delivered', delivery_status_code: 204, delivery_attempts: 2, last_attempt_at: '2026-01-16T17:00:05.000Z', next_attempt_at: null })
        .where('id', '=', second!)
        .execute();
    });

    const { data } = await list(acme.sandbox_api_key);
    expect(data.results.map((r) => r.delivery_data)).toEqual([
      {
        status: 'retrying',
        status_code: 503,
        webhook_id: retrying,
        attempts: 3,
        last_attempt_at: '2026-01-17T17:09:10.000Z',
        next_attempt_at: '2999-01-01T00:00:00.000Z',
      },
      { status: 'delivered', status_code: 204, webhook_id: delivered, attempts: 2, last_attempt_at: '2026-01-16T17:00:05.000Z', next_attempt_at: null },
    ]);
  });

  it('pages by `limit` and `next` to the end, every event once, in order', async () => {
    const acme = await t.customer();
    const recorded = [
      ...(await record(sandbox(acme), T, notifyRx(1), notifyRx(2), transferContacted('rq1'))),
      ...(await record(sandbox(acme), T + 1, notifyRx(3), notifyRx(4))),
    ];
    const first = await list(acme.sandbox_api_key, { limit: 2 });
    expect(first.data.results).toHaveLength(2);
    expect(first.data.next_page_token).toEqual(expect.any(String));

    expect(await listAll(acme.sandbox_api_key, { limit: 2 })).toEqual({ ids: recorded, pages: 3 });
    expect(await listAll(acme.sandbox_api_key, { limit: 5 })).toEqual({ ids: recorded, pages: 1 });
    expect(await listAll(acme.sandbox_api_key, { limit: 1 })).toEqual({ ids: recorded, pages: 5 });
  });

  it('answers 100 events a page by default', async () => {
    const acme = await t.customer();
    const recorded = await record(sandbox(acme), T, ...Array.from({ length: 101 }, (_, n) => notifyRx(n)));
    const first = await list(acme.sandbox_api_key);
    expect(first.data.results).toHaveLength(100);
    const second = await list(acme.sandbox_api_key, { next: first.data.next_page_token! });
    expect(second.data.results.map((r) => r.delivery_data.webhook_id)).toEqual([recorded[100]]);
    expect(second.data.next_page_token).toBeNull();
  });

  it('filters by timestamp conditions, which all apply together', async () => {
    const acme = await t.customer();
    const [at0] = await record(sandbox(acme), T, notifyRx(0));
    const [at10] = await record(sandbox(acme), T + 10, notifyRx(1));
    const [at20] = await record(sandbox(acme), T + 20, notifyRx(2));
    const [at30] = await record(sandbox(acme), T + 30, notifyRx(3));
    const cases: Array<[string, string[], Array<string | undefined>]> = [
      ['a range of two conditions', [`$gte:${T + 10}`, `$lt:${T + 30}`], [at10, at20]],
      ['an open range', [`$gt:${T + 10}`], [at20, at30]],
      ['an upper bound', [`$lte:${T + 10}`], [at0, at10]],
      ['an exact second', [`$eq:${T + 20}`], [at20]],
      ['an exact second within a range', [`$eq:${T + 20}`, `$gte:${T}`], [at20]],
      ['conditions that exclude each other', [`$gt:${T + 20}`, `$lt:${T + 10}`], []],
      ['an equality with a string, which no timestamp is', ['$eq:yesterday'], []],
      ['four conditions', [`$gte:${T}`, `$gt:${T}`, `$lte:${T + 30}`, `$lt:${T + 30}`], [at10, at20]],
    ];
    for (const [, timestamp, expected] of cases) {
      expect((await listAll(acme.sandbox_api_key, { timestamp })).ids).toEqual(expected);
    }
    expect(await listAll(acme.sandbox_api_key, { timestamp: [`$gte:${T + 10}`, `$lt:${T + 30}`], limit: 1 })).toEqual({
      ids: [at10, at20],
      pages: 2,
    });
  });

  it('filters by envelope status; notify events, which have none, never match', async () => {
    const acme = await t.customer();
    const [notify, contacted, notContacted] = await record(
      sandbox(acme),
      T,
      notifyRx(1),
      transferContacted('rq1'),
      transferNotContacted('rq1'),
    );
    expect((await listAll(acme.sandbox_api_key, { status: 'success' })).ids).toEqual([contacted]);
    expect((await listAll(acme.sandbox_api_key, { status: 'error' })).ids).toEqual([notContacted]);
    expect((await listAll(acme.sandbox_api_key, { status: 'triage' })).ids).toEqual([]);
    expect((await listAll(acme.sandbox_api_key)).ids).toEqual([notify, contacted, notContacted]);
  });

  it("answers only the caller's events of the environment its key selects", async () => {
    const acme = await t.customer();
    const globex = await t.customer();
    const [acmeSandbox] = await record(sandbox(acme), T, notifyRx(1));
    const [acmeProduction] = await record(production(acme), T, notifyRx(2));
    const [globexSandbox] = await record(sandbox(globex), T, notifyRx(3));

    expect((await listAll(acme.sandbox_api_key)).ids).toEqual([acmeSandbox]);
    expect((await listAll(acme.production_api_key)).ids).toEqual([acmeProduction]);
    expect((await listAll(globex.sandbox_api_key)).ids).toEqual([globexSandbox]);
    expect((await listAll(globex.production_api_key)).ids).toEqual([]);
  });

  it("refuses a page token issued to another customer or for the other environment", async () => {
    const acme = await t.customer();
    const globex = await t.customer();
    await record(sandbox(acme), T, notifyRx(1), notifyRx(2));
    const { data } = await list(acme.sandbox_api_key, { limit: 1 });
    const next = data.next_page_token!;
    for (const key of [globex.sandbox_api_key, acme.production_api_key]) {
      const refused = await list(key, { next });
      expect(refused.status).toBe(400);
      expect(refused.error).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        validation_errors: [{ key: 'next', message: 'is not a valid page token' }],
      });
    }
  });

  it('is served under the /api/v1 alias too', async () => {
    const acme = await t.customer();
    const [id] = await record(sandbox(acme), T, notifyRx(1));
    const { data, response } = await t.client(acme.sandbox_api_key, { alias: true }).GET('/v1/webhook_events', {});
    expect(response.status).toBe(200);
    expect(data!.results.map((r) => r.delivery_data.webhook_id)).toEqual([id]);
  });

  it('requires an API key', async () => {
    const { response } = await t.client().GET('/v1/webhook_events', {});
    expect(response.status).toBe(401);
  });

  describe('refuses invalid parameters with one item per parameter', () => {
    const cases: Array<[string, Query, Array<{ key: string; message: unknown }>]> = [
      ['a condition without an operator', { timestamp: [`${T}`] }, [{ key: 'timestamp', message: TIMESTAMP_SYNTAX }]],
      ['an unknown operator', { timestamp: [`$ne:${T}`] }, [{ key: 'timestamp', message: TIMESTAMP_SYNTAX }]],
      ['an operator without the $', { timestamp: [`gte:${T}`] }, [{ key: 'timestamp', message: TIMESTAMP_SYNTAX }]],
      ['a bound that is not an integer', { timestamp: [`$gte:${T}`, '$lt:tomorrow'] }, [{ key: 'timestamp', message: TIMESTAMP_SYNTAX }]],
      ['an empty condition', { timestamp: [''] }, [{ key: 'timestamp', message: TIMESTAMP_SYNTAX }]],
      ['five conditions', { timestamp: Array(5).fill(`$gte:${T}`) }, [{ key: 'timestamp', message: 'must contain less than or equal to 4 items' }]],
      ['a page of 101', { limit: 101 }, [{ key: 'limit', message: 'must be less than or equal to 100' }]],
      ['a page of 0', { limit: 0 }, [{ key: 'limit', message: 'must be greater than or equal to 1' }]],
      ['a page token of foreign characters', { next: 'not a token!' }, [{ key: 'next', message: expect.any(String) }]],
      ['a page token that was never issued', { next: Buffer.from('["1","msg_unknown"]').toString('base64url') }, [{ key: 'next', message: 'is not a valid page token' }]],
      ['a page token that is not a cursor', { next: 'abc' }, [{ key: 'next', message: 'is not a valid page token' }]],
      ['an unknown status', { status: 'done' as never }, [{ key: 'status', message: 'must be one of [success, triage, pending, error]' }]],
      [
        'a bad condition and a bad page token',
        { timestamp: ['soon'], next: 'abc' },
        [
          { key: 'timestamp', message: TIMESTAMP_SYNTAX },
          { key: 'next', message: 'is not a valid page token' },
        ],
      ],
    ];
    it.each(cases)('%s', async (_, query, errors) => {
      const acme = await t.customer();
      const { status, error } = await list(acme.sandbox_api_key, query);
      expect(status).toBe(400);
      expect(error).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: errors });
    });
  });
});
