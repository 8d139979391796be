// Listing webhook events of one type (listWebhookEventsByType): notify_rx only, by delivery id,
// and every other type refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/test-app.js';
import { eventRecorder, notifyRx, sandbox, T, TIMESTAMP_SYNTAX, transferContacted, type Query } from './support/webhook-event-fixtures.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const record = eventRecorder(() => t);

describe('listing webhook events of one type', () => {
  async function listType(key: string, webhookType: string, query: Query & { id?: string; request_id?: string } = {}) {
    const { data, error, response } = await t.client(key).GET('/v1/webhook_events/{webhook_type}', {
      params: { path: { webhook_type: webhookType as 'notify_rx' }, query },
    });
    return { data: data!, error: error as any, status: response.status };
  }

  it('answers only NOTIFY_RX events for notify_rx, in time order, paged', async () => {
    const acme = await t.customer();
    const [second] = await record(sandbox(acme), T + 5, notifyRx(2));
    const [first, , third] = await record(sandbox(acme), T, notifyRx(1), transferContacted('rq1'), notifyRx(3));
    const all = await listType(acme.sandbox_api_key, 'notify_rx');
    expect(all.status).toBe(200);
    expect(all.data.results.map((r) => r.delivery_data.webhook_id)).toEqual([first, third, second]);
    expect(all.data.results.every((r) => r.payload.callback_type === 'NOTIFY_RX')).toBe(true);

    const page1 = await listType(acme.sandbox_api_key, 'notify_rx', { limit: 2 });
    expect(page1.data.results.map((r) => r.delivery_data.webhook_id)).toEqual([first, third]);
    const page2 = await listType(acme.sandbox_api_key, 'notify_rx', { limit: 2, next: page1.data.next_page_token! });
    expect(page2.data.results.map((r) => r.delivery_data.webhook_id)).toEqual([second]);
    expect(page2.data.next_page_token).toBeNull();

    const ranged = await listType(acme.sandbox_api_key, 'notify_rx', { timestamp: [`$gt:${T}`, `$lte:${T + 5}`] });
    expect(ranged.data.results.map((r) => r.delivery_data.webhook_id)).toEqual([second]);
  });

  it('selects one event by its delivery id', async () => {
    const acme = await t.customer();
    const globex = await t.customer();
    const [, wanted] = await record(sandbox(acme), T, notifyRx(1), notifyRx(2));
    const found = await listType(acme.sandbox_api_key, 'notify_rx', { id: wanted! });
    expect(found.data.results.map((r) => r.delivery_data.webhook_id)).toEqual([wanted]);
    expect(found.data.results[0]!.payload).toEqual({ callback_type: 'NOTIFY_RX', details: notifyRx(2).details, timestamp: T });
    // Another customer's (or environment's) event stays invisible.
    expect((await listType(globex.sandbox_api_key, 'notify_rx', { id: wanted! })).data.results).toEqual([]);
    expect((await listType(acme.production_api_key, 'notify_rx', { id: wanted! })).data.results).toEqual([]);
  });

  it('matches nothing by status or request_id, which NOTIFY_RX events do not carry', async () => {
    const acme = await t.customer();
    await record(sandbox(acme), T, notifyRx(1), transferContacted('rq1'));
    expect((await listType(acme.sandbox_api_key, 'notify_rx', { status: 'success' })).data).toEqual({ results: [], next_page_token: null });
    expect((await listType(acme.sandbox_api_key, 'notify_rx', { request_id: 'rq1' })).data).toEqual({ results: [], next_page_token: null });
  });

  it('refuses every other type with 400 webhook_type', async () => {
    const acme = await t.customer();
    for (const webhookType of ['FILE', 'CONSULT', 'VISIT']) {
      const { status, error } = await listType(acme.sandbox_api_key, webhookType);
      expect(status).toBe(400);
      expect(error).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        validation_errors: [{ key: 'webhook_type', message: 'must be one of [notify_rx]' }],
      });
    }
    const both = await listType(acme.sandbox_api_key, 'TRANSFER_OUT', { timestamp: ['$after:1'] });
    expect(both.error.validation_errors).toEqual([
      { key: 'webhook_type', message: 'must be one of [notify_rx]' },
      { key: 'timestamp', message: TIMESTAMP_SYNTAX },
    ]);
    const unknown = await listType(acme.sandbox_api_key, 'TRANSFER');
    expect(unknown.status).toBe(400);
    expect(unknown.error.validation_errors).toEqual([{ key: 'webhook_type', message: expect.stringContaining('must be one of') }]);
  });

  it('is served under the /api/v1 alias too', async () => {
    const acme = await t.customer();
    const [id] = await record(sandbox(acme), T, notifyRx(1));
    const { data, response } = await t.client(acme.sandbox_api_key, { alias: true }).GET('/v1/webhook_events/{webhook_type}', {
      params: { path: { webhook_type: 'notify_rx' } },
    });
    expect(response.status).toBe(200);
    expect(data!.results.map((r) => r.delivery_data.webhook_id)).toEqual([id]);
  });
});
