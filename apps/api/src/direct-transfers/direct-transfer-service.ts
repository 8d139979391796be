import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { PharmacyIdentity } from '../config.js';
import { isCalendarDate } from '../dates.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { executeInserts } from '../db/transactor.js';
import { forbidden, notFound, validationFailed, type ValidationErrorItem } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PrescriberService } from '../prescribers/prescriber-service.js';
import { nowIso, recordToken } from '../tokens.js';
import type { DirectTransferRepository, DirectTransferRow } from './direct-transfer-repository.js';
import { acceptedSimulation } from '../events/sandbox-simulation.js';

type Schemas = components['schemas'];
export type DirectTransferCreate = Schemas['DirectTransferCreate'];

const DIRECT_TRANSFER_NOT_FOUND = 'Direct transfer not found.';
const DIRECT_TRANSFER_NOT_OWNED = 'This record belongs to another customer.';

function same(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** `transfer_to` names this pharmacy when all three parts match its records (trimmed, in any case). */
function isThisPharmacy(to: Schemas['DirectTransferTo'], pharmacy: PharmacyIdentity): boolean {
  return same(to.name, pharmacy.name) && same(to.id_number, pharmacy.idNumber) && same(to.pharmacist, pharmacy.pharmacist);
}

/** Dates the pattern lets through that no calendar has (`20250231`). */
function dateErrors(rx: Schemas['DirectTransferPrescription']): ValidationErrorItem[] {
  return (['written_date', 'first_fill_date', 'last_fill_date'] as const)
    .filter((field) => rx[field] !== undefined && !isCalendarDate(rx[field]!))
    .map((field) => ({ key: `prescription.${field}`, message: 'must be a valid date' }));
}

/** Direct transfers: create and read. New ones start `pending`; direct-transfer-lifecycle.ts moves them on. */
export class DirectTransferService {
  constructor(
    private readonly directTransfers: DirectTransferRepository,
    private readonly units: UnitsOfWork,
    private readonly patients: PatientService,
    private readonly prescribers: PrescriberService,
    private readonly pharmacy: PharmacyIdentity,
  ) {}

  /** Records the direct transfer `pending`, with its prescriber; answers the stored row. */
  async create(owner: Owner, input: DirectTransferCreate, requestId: string): Promise<DirectTransferRow> {
    const simulation = acceptedSimulation(owner, input.simulation);
    const errors = dateErrors(input.prescription);
    if (!isThisPharmacy(input.transfer_to, this.pharmacy)) {
      errors.push({ key: 'transfer_to', message: 'does not match this pharmacy' });
    }
    if (errors.length) throw validationFailed(errors);
    const patient = await this.patients.get(owner, input.patient_token);
    const now = nowIso();
    return this.units.run(requestId, async (uow) => {
      const prescriberToken = await this.prescribers.record(uow.trx, owner, input.prescriber);
      const row: DirectTransferRow = {
        token: recordToken(),
        ...ownerColumns(owner),
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
      await executeInserts(uow.trx, [this.directTransfers.insertOf(row, uow.trx), ...uow.startedInserts(owner, 'direct_transfer', row.token, simulation)]);
      return row;
    });
  }

  /**
   * The direct transfer with this token: another customer's is refused with `403` (as the
   * source documents for this read); the caller's own in the other environment does not
   * exist here.
   */
  async get(owner: Owner, token: string): Promise<DirectTransferRow> {
    return visibleTo(await this.directTransfers.findByToken(token), owner, {
      notFound: () => notFound(DIRECT_TRANSFER_NOT_FOUND),
      otherCustomer: () => forbidden(DIRECT_TRANSFER_NOT_OWNED),
    });
  }
}
