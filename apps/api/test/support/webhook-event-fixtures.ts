/** Events of the webhook event feed's stories, and recording them as if they happened at a given second. */
import { vi } from 'vitest';
import type { Owner } from '../../src/auth/principal.js';
import type { NewCustomer } from '../../src/customers/customer-service.js';
import type { Db } from '../../src/db/database.js';
import { recordEvent, type NewEvent } from '../../src/events/event-outbox.js';
import type { TestApp } from './test-app.js';

/** 2026-01-15T00:00:00Z, in seconds: the day the events below happen. */
export const T = 1768435200;
/** How the service refuses a timestamp condition it cannot read. */
export const TIMESTAMP_SYNTAX = 'must be {operator}:{value} with an operator of [$lt, $gt, $lte, $gte, $eq]';

/** Whose events, and of which environment. */
export const sandbox = (c: NewCustomer): Owner => ({ customerId: c.customer_id, environment: 'sandbox' });
export const production = (c: NewCustomer): Owner => ({ customerId: c.customer_id, environment: 'production' });

/** A NOTIFY_RX event; `n` tells its prescription apart. */
export function notifyRx(n: number): NewEvent {
  return {
    callbackType: 'NOTIFY_RX',
    details: {
      medication_name: 'Lisinopril 10 mg tablet',
      prescriber: 'Dr. Jordan Lee',
      prescription_token: `rx${n}Kd8Fh2Jl6Nq0Sv3Wy5Zb7`,
      patient_token: 'p7Xk2mQ9rT4vW8yZ1aB3cD5e',
      patient_token_duplicates: [],
      merged_patients: [],
      location: 'Denver',
      rx_link: `https://pharmacy.example.com/rx/rx${n}Kd8Fh2Jl6Nq0Sv3Wy5Zb7`,
    },
  };
}

/** The pharmacy was contacted for the transfer request `requestId`. */
export function transferContacted(requestId: string): NewEvent {
  return {
    callbackType: 'TRANSFER_CONTACT',
    status: 'success',
    requestId,
    details: {
      metadata: 'order-10045',
      message: 'Transfer request faxed to the pharmacy.',
      patient_token: 'p7Xk2mQ9rT4vW8yZ1aB3cD5e',
      transfer_token: 'tr5Gh7Jk9Lm1Np3Qr5St7Uv9',
      contact_name: 'Main Street Pharmacy',
      contact_method: 'fax',
      contact_number: '5125550100',
    },
  };
}

/** The pharmacy was not contacted: the transfer request `requestId` was no longer pending. */
export function transferNotContacted(requestId: string): NewEvent {
  return {
    callbackType: 'TRANSFER_CONTACT',
    status: 'error',
    requestId,
    details: {
      error_code: 'TRANSFER_NOT_PENDING',
      metadata: 'order-10045',
      transfer_token: 'tr5Gh7Jk9Lm1Np3Qr5St7Uv9',
      message: 'The transfer is no longer pending; the pharmacy was not contacted.',
    },
  };
}

type AlsoInUnitOfWork = (trx: Db, ids: string[]) => Promise<void>;

/**
 * Records events through the outbox, in one unit of work, as if they happened at `at`
 * (seconds); a last function argument runs in the same unit of work after them. `app`
 * answers the test app once the file's beforeAll has started it.
 */
export function eventRecorder(app: () => TestApp) {
  return async function record(owner: Owner, at: number, ...args: Array<NewEvent | AlsoInUnitOfWork>): Promise<string[]> {
    const events = args.filter((a): a is NewEvent => typeof a !== 'function');
    const also = args.find((a): a is AlsoInUnitOfWork => typeof a === 'function');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at * 1000);
    try {
      return await app().database.handle.db.transaction().execute(async (trx) => {
        const ids: string[] = [];
        for (const event of events) ids.push((await recordEvent(trx, owner, event, 'test')).id);
        await also?.(trx, ids);
        return ids;
      });
    } finally {
      vi.useRealTimers();
    }
  };
}

/** The query of GET /v1/webhook_events. */
export type Query = { timestamp?: string[]; limit?: number; next?: string; status?: 'success' | 'triage' | 'pending' | 'error' };
