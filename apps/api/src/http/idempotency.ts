import { hash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { idempotencyKeyInUse, idempotencyKeyReused } from '../errors.js';
import type { Services } from '../services.js';

/** The header that makes a request of the operations declaring it safe to retry. */
export const IDEMPOTENCY_KEY = 'Idempotency-Key';

/** What a handler answers. */
export interface HandlerOutput {
  status: number;
  body: unknown;
  contentType?: string;
}

/** JSON with object keys sorted, so a fingerprint does not depend on the order fields were sent in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request's fingerprint: the operation and its validated arguments (its declared headers but the key itself, when there are any). */
export function fingerprintOf(operationId: string, input: { path: unknown; query: unknown; headers?: Record<string, unknown>; body: unknown }): string {
  const { [IDEMPOTENCY_KEY]: _key, ...headers } = input.headers ?? {};
  const args = [operationId, input.path, input.query, input.body];
  if (Object.keys(headers).length > 0) args.push(headers);
  return hash('sha256', canonical(args), 'hex');
}

/** Whose keys they are: the caller's customer and environment (or its tenant). */
function scopeOf(principal: Principal): string {
  return principal.kind === 'tenant' ? `${principal.customerId}/tenant` : `${principal.customerId}/${principal.environment}`;
}

/**
 * Answers a request carrying an `Idempotency-Key` at most once: the first request with the
 * key stores its answer in the transaction of its unit of work (`answerInUnit`); a later one with the
 * same key and arguments gets that answer again (header `Idempotent-Replayed: true`), one
 * with other arguments `422`, one while the first is in flight `409`. A request that fails
 * stores nothing.
 */
export async function answerOnce(
  services: Services,
  request: { key: string; principal: Principal; operationId: string; fingerprint: string; requestId: string },
  reply: FastifyReply,
  handle: () => Promise<HandlerOutput>,
): Promise<HandlerOutput> {
  const outcome = await services.idempotency.reserve({
    scope: scopeOf(request.principal),
    key: request.key,
    operationId: request.operationId,
    fingerprint: request.fingerprint,
    requestId: request.requestId,
  });
  if (outcome.kind === 'in_flight') throw idempotencyKeyInUse();
  if (outcome.kind === 'reused') throw idempotencyKeyReused();
  if (outcome.kind === 'replay') {
    reply.header('idempotent-replayed', 'true');
    const { status, body, contentType } = outcome.answer;
    return { status, body: JSON.parse(body) as unknown, ...(contentType ? { contentType } : {}) };
  }
  const { reservation } = outcome;
  try {
    return await services.units.answerInUnit(request.requestId, handle, async (trx, out) => {
      const answer = { status: out.status, body: JSON.stringify(out.body), contentType: out.contentType ?? null };
      // The lease ran out and another request took the key: this one's writes must not stand.
      if (!(await services.idempotency.complete(trx, reservation, answer))) throw idempotencyKeyInUse();
    });
  } catch (error) {
    await services.idempotency.release(reservation);
    throw error;
  }
}
