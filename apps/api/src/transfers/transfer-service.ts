import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { executeInserts } from '../db/transactor.js';
import { invalidField, notFound } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PrescriptionService } from '../prescriptions/prescription-service.js';
import type { PrescriptionsTable } from '../prescriptions/prescription-tables.js';
import { nowIso, recordToken } from '../tokens.js';
import {
  newTransferMedication,
  type TransferMedicationRow,
  type TransferMessageRow,
  type TransferRepository,
  type TransferRow,
} from './transfer-repository.js';
import { acceptedSimulation } from '../events/sandbox-simulation.js';

/** The create body, as the route validated it against the spec. */
export type TransferRequestCreate = components['schemas']['TransferRequestCreate'];

const TRANSFER_NOT_FOUND = 'Transfer not found.';
/** Transfer requests per page of the list (seed 8). */
const TRANSFER_PAGE_SIZE = 50;

export interface TransferWithMedications {
  transfer: TransferRow;
  medications: TransferMedicationRow[];
}

export interface TransferRecord extends TransferWithMedications {
  messages: TransferMessageRow[];
  /** The prescriptions of transferred medications, by token. */
  prescriptions: Map<string, PrescriptionsTable>;
}

/** Transfer requests: create, list, read. New requests start `pending`; transfer-lifecycle.ts moves them on. */
export class TransferService {
  constructor(
    private readonly transfers: TransferRepository,
    private readonly units: UnitsOfWork,
    private readonly patients: PatientService,
    private readonly prescriptions: PrescriptionService,
  ) {}

  async create(owner: Owner, input: TransferRequestCreate, requestId: string): Promise<TransferWithMedications> {
    const simulation = acceptedSimulation(owner, input.simulation);
    if (simulation?.error_code !== undefined && simulation.outcome !== 'reject') throw invalidField('simulation.error_code', 'is not allowed');
    const patient = await this.patients.get(owner, input.patient_token);
    const now = nowIso();
    const transfer: TransferRow = {
      token: recordToken(),
      ...ownerColumns(owner),
      patient_token: patient.token,
      status: 'pending',
      pharmacy_name: input.pharmacy_name ?? null,
      pharmacy_phone: input.pharmacy_phone ?? null,
      pharmacy_fax: input.pharmacy_fax ?? null,
      prescriber_name: input.prescriber_name ?? null,
      prescriber_phone: input.prescriber_phone ?? null,
      prescriber_fax: input.prescriber_fax ?? null,
      all_medications: input.medications === undefined ? 1 : 0,
      notes: input.notes ?? null,
      metadata: input.metadata ?? null,
      cancel_reason: null,
      cancel_reason_other: null,
      completed_at: null,
      created_at: now,
      updated_at: now,
    };
    const medications = (input.medications ?? []).map((name, position) => newTransferMedication(transfer.token, position, name, now));
    // Inserts only: on PostgreSQL one statement, without begin/commit.
    await this.units.runInserts(requestId, (uow) =>
      executeInserts(uow.trx, [...this.transfers.inserts(transfer, medications, uow.trx), ...uow.startedInserts(owner, 'transfer', transfer.token, simulation)]),
    );
    return { transfer, medications };
  }

  /** Zero-based page of the caller's transfer requests, earliest first; beyond the end, none. */
  async list(owner: Owner, page: number): Promise<TransferWithMedications[]> {
    const transfers = await this.transfers.listPage(owner, page * TRANSFER_PAGE_SIZE, TRANSFER_PAGE_SIZE);
    const medications = await this.transfers.medicationsOf(transfers.map((t) => t.token));
    return transfers.map((transfer) => ({
      transfer,
      medications: medications.filter((m) => m.transfer_token === transfer.token),
    }));
  }

  /** Another customer's transfer request, or one of the other environment, is not found. */
  async get(owner: Owner, token: string): Promise<TransferRecord> {
    const transfer = visibleTo(await this.transfers.findByToken(token), owner, { notFound: () => notFound(TRANSFER_NOT_FOUND) });
    const [medications, messages] = await Promise.all([
      this.transfers.medicationsOf([transfer.token]),
      this.transfers.messagesOf(transfer.token),
    ]);
    const rxTokens = medications.map((m) => m.prescription_token).filter((t): t is string => t !== null);
    const prescriptions = new Map((await this.prescriptions.findMany(rxTokens)).map((rx) => [rx.token, rx]));
    return { transfer, medications, messages, prescriptions };
  }
}
