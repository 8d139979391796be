import type { Compilable } from 'kysely';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { ownerColumns } from '../db/ownership.js';
import { executeInserts } from '../db/transactor.js';
import { notFound } from '../errors.js';
import { recordToken } from '../tokens.js';
import type { CopayRequestRepository, CopayRequestRow } from './copay-request-repository.js';

const COPAY_REQUEST_NOT_FOUND = 'Unable to find Copay Request.';

/** One filled prescription of a fill request, to be priced under the request's plan. */
interface CopayFill {
  position: number;
  prescription_token: string;
  days_supply: number;
  quantity: number;
}

/** Copay requests: opened by insurance-paid fill requests (one per filled prescription), read by id. */
export class CopayRequestService {
  constructor(private readonly copayRequests: CopayRequestRepository) {}

  /** Another customer's request, or one of the other environment, does not exist here. */
  async get(owner: Owner, requestId: string): Promise<CopayRequestRow> {
    const row = await this.copayRequests.find(owner, requestId);
    if (!row) throw notFound(COPAY_REQUEST_NOT_FOUND);
    return row;
  }

  /** The ids of the copay requests a fill request opened, in the order of its medications. */
  idsForFillRequest(fillRequestToken: string): Promise<string[]> {
    return this.copayRequests.idsForFillRequest(fillRequestToken);
  }

  /** Opens a pending copay request per fill under the plan, in the caller's unit of work. */
  async open(
    trx: Db,
    owner: Owner,
    request: { fillRequestToken: string; patientToken: string; insuranceToken: string; createdAt: string },
    fills: readonly CopayFill[],
  ): Promise<void> {
    await executeInserts(trx, this.opening(trx, owner, request, fills));
  }

  /** `open` as the caller runs it: the insert of the copay requests (for `executeInserts`, in its unit of work). */
  opening(
    trx: Db,
    owner: Owner,
    request: { fillRequestToken: string; patientToken: string; insuranceToken: string; createdAt: string },
    fills: readonly CopayFill[],
  ): Compilable[] {
    const rows: CopayRequestRow[] = fills.map((f) => ({
      token: recordToken(),
      ...ownerColumns(owner),
      fill_request_token: request.fillRequestToken,
      position: f.position,
      patient_token: request.patientToken,
      prescription_token: f.prescription_token,
      insurance_token: request.insuranceToken,
      status: 'pending',
      copay_amount_cents: null,
      days_supply: f.days_supply,
      quantity: f.quantity,
      message: null,
      created_at: request.createdAt,
      completed_at: null,
    }));
    return this.copayRequests.inserts(rows, trx);
  }
}
