/**
 * `pnpm --filter @pharmacy/api bench:webhooks`: webhook delivery throughput and latency.
 * Runs the app in this process with its delivery worker on the embedded database (or
 * DATABASE_URL=postgres://...), and a local receiver (node:http on 127.0.0.1) that answers
 * 200. Two phases:
 *   - backlog: BENCH_EVENTS events (default 2000) recorded with the worker stopped, then
 *     the worker started: events delivered per second until the backlog is drained;
 *   - paced: BENCH_PACED events (default 200), one every BENCH_PACE_MS (default 10 ms), and
 *     the delay from each event's commit to its arrival at the receiver (p50, p99, max).
 * The receiver shares this process's event loop, so the numbers are a lower bound.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import type { Owner } from '../src/auth/principal.js';
import { isPostgresUrl, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { WebhookDeliveryWorker } from '../src/webhook-deliveries/webhook-delivery-worker.js';

const burst = Number(process.env.BENCH_EVENTS ?? 2000);
const paced = Number(process.env.BENCH_PACED ?? 200);
const paceMs = Number(process.env.BENCH_PACE_MS ?? 10);

const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
const databaseUrl = process.env.DATABASE_URL && isPostgresUrl(process.env.DATABASE_URL) ? process.env.DATABASE_URL : join(dir, 'bench.db');
const config = loadConfig({
  ...process.env,
  LOG_LEVEL: 'silent',
  DATABASE_URL: databaseUrl,
  SECRETS_KEY: process.env.SECRETS_KEY || randomBytes(32).toString('base64'),
});

/** First arrival time per webhook-id; `requests` counts every request, so repeats show as duplicates. */
const arrivals = new Map<string, number>();
let requests = 0;
let waiting: { count: number; done: () => void } | undefined;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests++;
    const id = req.headers['webhook-id'] as string;
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    res.end();
    if (waiting && arrivals.size >= waiting.count) waiting.done();
  });
});
await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const database = openDatabase(databaseUrl);
await migrateToLatest(database);
const app = await buildApp({ config, database, workers: false });
await app.fastify.ready();
const worker = new WebhookDeliveryWorker(app.services.webhookDelivery, config.webhooks, app.fastify.log);
const customer = await app.services.customers.create('Webhook bench');
const owner: Owner = { customerId: customer.customer_id, environment: 'sandbox' };
await app.services.webhookEndpoints.set(owner, url, 'bench');

// Recorded as the app's actions do: in units of work (group commit on the embedded database),
// whose commit wakes delivery.
const recorded = new Map<string, number>();
async function record(n: number): Promise<string> {
  const id = await app.services.units.run(`bench_${n}`, async (uow) => {
    await uow.emit(owner, {
      callbackType: 'NOTIFY_RX',
      details: { medication_name: `Bench ${n}`, prescriber: null, prescription_token: `rx${n}`, patient_token: 'pat', patient_token_duplicates: [], merged_patients: [], location: 'Austin, TX', rx_link: `https://example.com/rx/${n}` },
    });
    return uow.events[0]!.id;
  });
  recorded.set(id, performance.now());
  return id;
}

function delivered(count: number): Promise<void> {
  return new Promise((done) => {
    if (arrivals.size >= count) return done();
    waiting = { count, done };
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

// Backlog.
const recordStart = performance.now();
let next = 0;
await Promise.all(Array.from({ length: 32 }, async () => {
  while (next < burst) await record(next++);
}));
const recordedIn = performance.now() - recordStart;
const start = performance.now();
worker.start();
await delivered(burst);
const burstMs = Math.max(...arrivals.values()) - start;

// Paced.
const pacedIds = new Set<string>();
for (let n = 0; n < paced; n++) {
  pacedIds.add(await record(burst + n));
  await new Promise((r) => setTimeout(r, paceMs));
}
await delivered(burst + paced);
const delays = [...pacedIds].map((id) => arrivals.get(id)! - recorded.get(id)!).sort((a, b) => a - b);

// The receiver may hear an event before its outcome is written: wait for the writes (at most 5 s).
let rows: { delivery_status: string }[] = [];
for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
  rows = await database.db.selectFrom('events').select(['delivery_status']).where('customer_id', '=', owner.customerId).execute();
  if (rows.every((r) => r.delivery_status === 'delivered')) break;
}
console.log(`database: ${database.dialect}, concurrency ${config.webhooks.concurrency}`);
console.log(`backlog: ${burst} events (recorded in ${recordedIn.toFixed(0)} ms) delivered in ${burstMs.toFixed(0)} ms: ${Math.round((burst / burstMs) * 1000)} events/s`);
console.log(
  `paced: ${paced} events, one per ${paceMs} ms: record-to-delivery p50 ${percentile(delays, 50).toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${delays.at(-1)!.toFixed(1)} ms`,
);
console.log(`delivered: ${rows.filter((r) => r.delivery_status === 'delivered').length} of ${rows.length}; duplicates at the receiver: ${requests - arrivals.size}`);

await worker.stop();
await app.fastify.close();
await database.close();
receiver.close();
rmSync(dir, { recursive: true, force: true });
