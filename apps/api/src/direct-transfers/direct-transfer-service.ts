import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { PharmacyIdentity } from '../config.js';
import { forbidden, notFound, validationFailed, type ValidationErrorItem } from '../errors.js';
import { isCalendarDate } from '../patients/patient-identity.js';
import { PrescriberService } from '../prescribers/prescriber-service.js';
import type { ServiceDeps } from '../service-deps.js';
import { nowIso, randomToken } from '../tokens.js';
import { DirectTransferRepository, type DirectTransferRow } from './direct-transfer-repository.js';

type Schemas = components['schemas'];
export type DirectTransferCreate = Schemas['DirectTransferCreate'];

export const DIRECT_TRANSFER_NOT_FOUND = 'Direct transfer not found.';
export const DIRECT_TRANSFER_NOT_OWNED = 'This record belongs to another customer.';

function same(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** `transfer_to` names this pharmacy when all three parts match its records (trimmed, in any case). */
export function isThisPharmacy(to: Schemas['DirectTransferTo'], pharmacy: PharmacyIdentity): boolean {
  return same(to.name, pharmacy.name) && same(to.id_number, pharmacy.idNumber) && same(to.pharmacist, pharmacy.pharmacist);
}

/** Dates the pattern lets through that no calendar has (`20250231`). */
function dateErrors(rx: Schemas['DirectTransferPrescription']): ValidationErrorItem[] {
  return (['written_date', 'first_fill_date', 'last_fill_date'] as const)
    .filter((field) => rx[field] !== undefined && !isCalendarDate(rx[field]!))
    .map((field) => ({ key: `prescription.${field}`, message: 'must be a valid date' }));
}

/** Direct transfers: create and read. */
export class DirectTransferService {
  private readonly directTransfers: DirectTransferRepository;
  private readonly prescribers: PrescriberService;

  constructor(private readonly deps: ServiceDeps) {
    this.directTransfers = new DirectTransferRepository(deps.db);
    this.prescribers = new PrescriberService(deps);
  }

  /** Records the direct transfer `pending`, with its prescriber; answers the stored row. */
  async create(owner: Owner, input: DirectTransferCreate): Promise<DirectTransferRow> {
    const errors = dateErrors(input.prescription);
    if (!isThisPharmacy(input.transfer_to, this.deps.config.pharmacy)) {
      errors.push({ key: 'transfer_to', message: 'does not match this pharmacy' });
    }
    if (errors.length) throw validationFailed(errors);
    const patient = await this.deps.patients.get(owner, input.patient_token);
    const now = nowIso();
    return this.deps.transactor.run(async (trx) => {
      const prescriberToken = await this.prescribers.record(trx, owner, input.prescriber);
      const row: DirectTransferRow = {
        token: randomToken(),
        customer_id: owner.customerId,
        environment: owner.environment,
        patient_token: patient.token,
        prescriber_token: prescriberToken,
        status: 'pending',
        prescriber: JSON.stringify(input.prescriber),
        transfer_from: JSON.stringify(input.transfer_from),
        transfer_to: JSON.stringify(input.transfer_to),
        prescription: JSON.stringify(input.prescription),
        prescription_token: null,
        rejection_message: null,
        created_at: now,
        updated_at: now,
      };
      await this.directTransfers.insert(row, trx);
      await this.deps.sandbox?.schedule(trx, owner, 'direct_transfer', row.token);
      return row;
    });
  }

  /**
   * The direct transfer with this token: another customer's is refused with `403` (as the
   * source documents for this read); the caller's own in the other environment does not
   * exist here.
   */
  async get(owner: Owner, token: string): Promise<DirectTransferRow> {
    const row = await this.directTransfers.findByToken(token);
    if (!row) throw notFound(DIRECT_TRANSFER_NOT_FOUND);
    if (row.customer_id !== owner.customerId) throw forbidden(DIRECT_TRANSFER_NOT_OWNED);
    if (row.environment !== owner.environment) throw notFound(DIRECT_TRANSFER_NOT_FOUND);
    return row;
  }
}
