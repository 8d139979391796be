import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Owner } from '../../src/auth/principal.js';
import type { Db } from '../../src/db/database.js';
import { recordEvent as recordInOutbox } from '../../src/events/event-outbox.js';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers the n-th request (0-based): a status, or 'hang' (never answers). */
export type Answer = (n: number, request: ReceivedRequest) => number | 'hang';

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  answer: Answer;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on a loopback port. */
export async function startReceiver(answer: Answer = () => 200): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received,
    answer,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return received;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const status = receiver.answer(received.length, request);
      received.push(request);
      if (status === 'hang') {
        hanging.add(res);
        return;
      }
      res.statusCode = status;
      res.end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** Recomputes the Standard Webhooks signature independently of the service's code. */
export function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The n-th valid NOTIFY_RX event of a test. */
function notifyRx(n: number) {
  return {
    callbackType: 'NOTIFY_RX',
    details: {
      medication_name: `Amoxicillin ${n}`,
      prescriber: 'Dr. Who',
      prescription_token: `rx${n}`,
      patient_token: 'pat1',
      patient_token_duplicates: [],
      merged_patients: [],
      location: 'Austin, TX',
      rx_link: `https://example.com/rx/${n}`,
    },
  };
}

/** A valid NOTIFY_RX event, recorded through the outbox in its own unit of work. */
export async function recordEvent(db: Db, owner: Owner, n = 0, lockedUntil?: string): Promise<{ id: string; payload: string }> {
  const { id } = await db.transaction().execute(async (trx) => {
    const recorded = await recordInOutbox(trx, owner, notifyRx(n), 'test');
    // Claimed by some worker from the start (as if by a process that stopped or is working).
    if (lockedUntil) await trx.updateTable('events').set({ locked_until: lockedUntil }).where('id', '=', recorded.id).execute();
    return recorded;
  });
  const row = await db.selectFrom('events').select('payload').where('id', '=', id).executeTakeFirstOrThrow();
  return { id, payload: row.payload };
}

/** `count` events recorded together in one unit of work (all due at once); answers their ids and when they committed. */
export async function recordEvents(db: Db, owner: Owner, count: number): Promise<{ ids: string[]; committedAt: number }> {
  const ids = await db.transaction().execute(async (trx) => {
    const recorded: string[] = [];
    for (let n = 0; n < count; n++) recorded.push((await recordInOutbox(trx, owner, notifyRx(n), 'test')).id);
    return recorded;
  });
  return { ids, committedAt: Date.now() };
}

export async function deliveryOf(db: Db, id: string) {
  return db
    .selectFrom('events')
    .select(['delivery_status', 'delivery_status_code', 'delivery_attempts', 'last_attempt_at', 'next_attempt_at', 'locked_until'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Polls until the event's delivery reaches `status`. */
export async function waitForDelivery(db: Db, id: string, status: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await deliveryOf(db, id);
    if (row.delivery_status === status) return row;
    if (Date.now() > deadline) throw new Error(`event ${id} is ${row.delivery_status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');
