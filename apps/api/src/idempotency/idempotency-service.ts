import { contextOf as sealedContext } from '../crypto/sealed-columns.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Db } from '../db/database.js';
import type { Transactor } from '../db/transactor.js';
import { nowIso } from '../tokens.js';
import type { IdempotencyKeyRow, IdempotencyRepository, StoredAnswer } from './idempotency-repository.js';
import { idempotencyKeySealedColumns } from './idempotency-tables.js';
import { nowMs } from '../clock.js';

/** How long an answer is replayed. */
const REPLAY_MS = 24 * 3_600_000;
/** How long a request in flight holds its key before another may take it over (it died). */
const LEASE_MS = 60_000;

/** The context a stored answer is sealed under: it opens for its own key only. */
function contextOf(scope: string, key: string): string {
  return sealedContext(idempotencyKeySealedColumns, 'response_body', { scope, key });
}

/** A key this request now holds: its answer is stored with `complete`, or the key forgotten with `release`. */
export interface Reservation {
  scope: string;
  key: string;
  lease: string;
}

/** What a request with a key may do. */
export type KeyOutcome =
  | { kind: 'reserved'; reservation: Reservation }
  | { kind: 'replay'; answer: StoredAnswer }
  /** Another request with the key is in flight. */
  | { kind: 'in_flight' }
  /** The key was used for another operation or body. */
  | { kind: 'reused' };

/** The request a key is reserved for. */
export interface KeyedRequest {
  scope: string;
  key: string;
  operationId: string;
  fingerprint: string;
  requestId: string;
}

/**
 * Idempotency keys (the `Idempotency-Key` header of the operations that declare it): the
 * first request with a key reserves it, stores its answer in the transaction of its writes,
 * and for 24 hours every request with the key gets that answer again.
 */
export class IdempotencyService {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly transactor: Transactor,
    /** Stored answers are sealed: they can hold a secret shown once (a webhook signing secret) or a patient's tokens. */
    private readonly box: SecretBox,
  ) {}

  async reserve(request: KeyedRequest): Promise<KeyOutcome> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = nowMs();
      const row: IdempotencyKeyRow = {
        scope: request.scope,
        key: request.key,
        operation_id: request.operationId,
        fingerprint: request.fingerprint,
        state: 'in_flight',
        locked_until: new Date(now + LEASE_MS).toISOString(),
        response_status: null,
        response_body: null,
        response_type: null,
        request_id: request.requestId,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + REPLAY_MS).toISOString(),
      };
      const reserved = { kind: 'reserved' as const, reservation: { scope: row.scope, key: row.key, lease: row.locked_until! } };
      if (await this.transactor.run((trx) => this.keys.insert(row, trx))) return reserved;
      const seen = await this.keys.find(request.scope, request.key);
      if (!seen) continue; // released in between: try again
      const nowText = new Date(now).toISOString();
      const expired = seen.expires_at <= nowText || (seen.state === 'in_flight' && seen.locked_until !== null && seen.locked_until <= nowText);
      if (expired) {
        if (await this.transactor.run((trx) => this.keys.takeOver(seen, row, trx))) return reserved;
        continue;
      }
      if (seen.operation_id !== request.operationId || seen.fingerprint !== request.fingerprint) return { kind: 'reused' };
      if (seen.state === 'in_flight') return { kind: 'in_flight' };
      const body = this.box.open(seen.response_body!, contextOf(seen.scope, seen.key));
      return { kind: 'replay', answer: { status: seen.response_status!, body, contentType: seen.response_type } };
    }
    return { kind: 'in_flight' };
  }

  /** Stores the answer in the request's transaction; false when the request no longer held the key (it took too long). */
  complete(trx: Db, reservation: Reservation, answer: StoredAnswer): Promise<boolean> {
    const sealed = { ...answer, body: this.box.seal(answer.body, contextOf(reservation.scope, reservation.key)) };
    return this.keys.complete(trx, reservation.scope, reservation.key, reservation.lease, sealed);
  }

  /** Forgets the key of a request that failed, so a retry is processed afresh. */
  release(reservation: Reservation): Promise<void> {
    return this.transactor.run((trx) => this.keys.release(reservation.scope, reservation.key, reservation.lease, trx));
  }

  /** Deletes expired keys; answers how many (the pruning worker's tick). */
  prune(): Promise<number> {
    return this.transactor.run((trx) => this.keys.deleteExpired(nowIso(), trx));
  }
}
