import type { Owner } from '../auth/principal.js';
import { notFound } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { CopayRequestRepository, type CopayRequestRow } from './copay-request-repository.js';

export const COPAY_REQUEST_NOT_FOUND = 'Unable to find Copay Request.';

/** Copay requests (opened by insurance-paid fill requests, see FillRequestService). */
export class CopayRequestService {
  private readonly copayRequests: CopayRequestRepository;

  constructor(deps: ServiceDeps) {
    this.copayRequests = new CopayRequestRepository(deps.db);
  }

  /** Another customer's request, or one of the other environment, does not exist here. */
  async get(owner: Owner, requestId: string): Promise<CopayRequestRow> {
    const row = await this.copayRequests.find(owner, requestId);
    if (!row) throw notFound(COPAY_REQUEST_NOT_FOUND);
    return row;
  }
}
