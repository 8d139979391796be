import type { Owner } from '../auth/principal.js';
import { notFound } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { InsuranceRepository, type InsuranceRow } from './insurance-repository.js';

export const INSURANCE_NOT_FOUND = 'Unable to find Insurance.';

/** Insurance records (created by fill requests, see FillRequestService). */
export class InsuranceService {
  private readonly insurances: InsuranceRepository;

  constructor(deps: ServiceDeps) {
    this.insurances = new InsuranceRepository(deps.db);
  }

  /** Another customer's record, or one of the other environment, does not exist here. */
  async get(owner: Owner, token: string): Promise<InsuranceRow> {
    const row = await this.insurances.find(owner, token);
    if (!row) throw notFound(INSURANCE_NOT_FOUND);
    return row;
  }
}
