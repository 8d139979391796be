import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { PrescriptionsTable } from '../db/tables.js';
import type { EventEnvelope, NewEvent } from '../events/event-outbox.js';
import type { OrdersTable } from '../fill-requests/fill-request-tables.js';
import type { OrderService } from '../orders/order-service.js';
import type { ServiceDeps } from '../service-deps.js';
import { nowIso } from '../tokens.js';
import { newTransferMedication } from '../transfers/transfer-repository.js';
import type { TransferMedicationsTable, TransferRequestsTable } from '../transfers/transfer-tables.js';
import * as events from './operation-events.js';
import { OperationsRepository } from './operations-repository.js';
import { newPrescription, type PrescriptionInput } from './prescription-intake.js';
import {
  isRejectionCode,
  TRANSFER_REJECTIONS,
  type TransferContactErrorCode,
  type TransferRejectionCode,
} from './rejection-codes.js';

type Schemas = components['schemas'];

/**
 * An action the record's state does not allow (the transfer is no longer pending, the
 * order was delivered...), or an unknown record. `code` is stable; the message names
 * tokens only.
 */
export class OperationError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'NOT_PENDING' | 'INVALID',
    message: string,
  ) {
    super(message);
    this.name = 'OperationError';
  }
}

/** What an action did: the records it changed, and the events it recorded in order. */
export interface OperationResult {
  events: { id: string; envelope: EventEnvelope }[];
}

/** Records an event of the action in its unit of work. */
export type Emit = (owner: Owner, event: NewEvent) => Promise<void>;

export interface ContactInput {
  contact_method: string;
  /** Defaults to the transfer's pharmacy (or prescriber) name. */
  contact_name?: string;
  /** Defaults to the transfer's number for the method. */
  contact_number?: string;
  /** Records the attempt as failed with this code instead (a contact that did not get through). */
  failure?: TransferContactErrorCode | TransferRejectionCode;
}

/** The outcome of one medication of a transfer: the prescription it became, or why it was refused. */
export interface TransferOutcome {
  /** The medication of the request; omit to report one more (only for requests of every medication). */
  transfer_medication_token?: string;
  /** The name asked for, when reporting one more medication (defaults to the prescription's name). */
  medication_name?: string;
  prescription?: PrescriptionInput & { refills_filled?: number };
  rejection?: { code: TransferRejectionCode; message?: string };
}

export type ShipmentStatus = events.ShipmentStatus;
export const SHIPMENT_STATUSES = events.SHIPMENT_STATUSES;

const CARRIERS: Record<string, { carrier: string; url: (n: string) => string; digits: number }> = {
  usps: { carrier: 'USPS', url: (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`, digits: 22 },
  fedex: { carrier: 'FedEx', url: (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`, digits: 12 },
};

function trackingNumber(digits: number): string {
  let n = '9';
  while (n.length < digits) n += String(Math.floor(Math.random() * 10));
  return n;
}

function ownerOf(row: { customer_id: string; environment: string }): Owner {
  return { customerId: row.customer_id, environment: row.environment as Owner['environment'] };
}

/**
 * What pharmacy staff do: contact the other party of a transfer, complete or reject it,
 * accept or reject a direct transfer, receive an electronic prescription, dispense a fill
 * request and record its shipment. Each action is one unit of work that changes the state
 * AND records its events (the outbox), so neither is ever without the other. Staff drive
 * them in production (the admin CLI); the sandbox's simulator drives them on a schedule.
 */
export class PharmacyOperations {
  private readonly repo = new OperationsRepository();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly orders: OrderService,
  ) {}

  private run<T extends object>(
    work: (trx: Db, emit: Emit) => Promise<T>,
  ): Promise<T & OperationResult> {
    return this.deps.transactor.run((trx) => this.within(trx, work));
  }

  /** Runs an action inside the caller's unit of work (the simulator advances its schedule in the same one). */
  async within<T extends object>(
    trx: Db,
    work: (trx: Db, emit: Emit) => Promise<T>,
  ): Promise<T & OperationResult> {
    const recorded: OperationResult['events'] = [];
    const emit = async (owner: Owner, event: NewEvent) => {
      recorded.push(await this.deps.outbox.record(trx, owner, event));
    };
    const result = await work(trx, emit);
    return { ...result, events: recorded };
  }

  private async pendingTransfer(trx: Db, token: string): Promise<TransferRequestsTable> {
    const transfer = await this.repo.transfer(trx, token);
    if (!transfer) throw new OperationError('NOT_FOUND', `Transfer ${token} not found.`);
    if (transfer.status !== 'pending') throw new OperationError('NOT_PENDING', `Transfer ${token} is ${transfer.status}.`);
    return transfer;
  }

  // ---- transfers ------------------------------------------------------------------------

  contactTransfer(token: string, input: ContactInput) {
    return this.run((trx, emit) => this.contactTransferIn(trx, emit, token, input));
  }

  /**
   * Contacts the pharmacy (or prescriber) of a transfer request: `TRANSFER_CONTACT` success;
   * `error` when the request is no longer pending, the method is not fax or phone or the
   * request has no number for it, or the attempt failed (`failure`).
   */
  async contactTransferIn(trx: Db, emit: Emit, token: string, input: ContactInput) {
    const transfer = await this.repo.transfer(trx, token);
    if (!transfer) throw new OperationError('NOT_FOUND', `Transfer ${token} not found.`);
    const owner = ownerOf(transfer);
    const now = nowIso();
    const fail = async (code: TransferContactErrorCode | TransferRejectionCode) => {
      await emit(owner, events.transferContactError(transfer, code));
      return { transfer_token: token, status: 'error' as const, error_code: code };
    };
    if (transfer.status !== 'pending') return fail('TRANSFER_NOT_PENDING');
    const method = input.contact_method;
    if (method !== 'fax' && method !== 'phone') return fail('CONTACT_METHOD_UNSUPPORTED');
    // The pharmacy when it has a number for the method, else the prescriber.
    const pharmacyNumber = method === 'fax' ? transfer.pharmacy_fax : transfer.pharmacy_phone;
    const prescriberNumber = method === 'fax' ? transfer.prescriber_fax : transfer.prescriber_phone;
    const party = pharmacyNumber
      ? { name: transfer.pharmacy_name, number: pharmacyNumber }
      : prescriberNumber
        ? { name: transfer.prescriber_name, number: prescriberNumber }
        : undefined;
    const number = input.contact_number ?? party?.number;
    if (!number) return fail('CONTACT_METHOD_UNSUPPORTED');
    const name = input.contact_name ?? party?.name ?? transfer.pharmacy_name ?? transfer.prescriber_name ?? 'the transferring party';
    if (input.failure) {
      await this.repo.addTransferMessage(trx, token, `Contact by ${method} failed.`, now);
      return fail(input.failure);
    }
    await this.repo.addTransferMessage(trx, token, `Contacted ${name} by ${method}.`, now);
    await this.repo.touchTransfer(trx, token, now);
    await emit(owner, events.transferContactSuccess(transfer, { name, method, number }));
    return { transfer_token: token, status: 'success' as const, contact_name: name, contact_method: method, contact_number: number };
  }

  completeTransfer(token: string, outcomes: TransferOutcome[]) {
    return this.run((trx, emit) => this.completeTransferIn(trx, emit, token, outcomes));
  }

  /**
   * Records the other party's answer for every pending medication: each transferred one
   * becomes a prescription of the patient (`NOTIFY_RX` each) and the request `completed`
   * (`TRANSFER` success); when none was transferred the request is `rejected` with the
   * first rejection code (`TRANSFER` error).
   */
  async completeTransferIn(
    trx: Db,
    emit: Emit,
    token: string,
    outcomes: TransferOutcome[],
  ) {
    const transfer = await this.pendingTransfer(trx, token);
    const owner = ownerOf(transfer);
    const now = nowIso();
    const medications = await this.repo.transferMedications(trx, token);
    const byToken = new Map(medications.map((m) => [m.token, m]));
    let position = medications.reduce((max, m) => Math.max(max, m.position + 1), 0);
    const answered = new Set<string>();
    const moved: { medication: TransferMedicationsTable; rx: PrescriptionsTable }[] = [];
    const rejections: { code: TransferRejectionCode; message?: string }[] = [];

    for (const [i, outcome] of outcomes.entries()) {
      if (!outcome.prescription === !outcome.rejection) {
        throw new OperationError('INVALID', `Outcome ${i} needs either a prescription or a rejection.`);
      }
      if (outcome.rejection) validateRejection(outcome.rejection.code, outcome.rejection.message);
      let medication: TransferMedicationsTable | undefined;
      if (outcome.transfer_medication_token !== undefined) {
        medication = byToken.get(outcome.transfer_medication_token);
        if (!medication) throw new OperationError('INVALID', `Outcome ${i}: no medication ${outcome.transfer_medication_token} in transfer ${token}.`);
        if (medication.status !== 'pending' || answered.has(medication.token)) {
          throw new OperationError('INVALID', `Outcome ${i}: medication ${medication.token} was already answered.`);
        }
      } else {
        if (!transfer.all_medications) {
          throw new OperationError('INVALID', `Outcome ${i} must name a transfer_medication_token (the request listed its medications).`);
        }
        const name = outcome.medication_name ?? outcome.prescription?.medication_name;
        if (!name) throw new OperationError('INVALID', `Outcome ${i} needs a medication_name.`);
        medication = newTransferMedication(token, position++, name, now);
        await this.repo.insertTransferMedication(trx, medication);
      }
      answered.add(medication.token);
      if (outcome.prescription) {
        const rx = newPrescription(owner, transfer.patient_token, outcome.prescription, 'transfer');
        await this.repo.insertPrescription(trx, rx);
        const changes = {
          status: 'transferred' as const,
          prescription_token: rx.token,
          source_last_filled_date: rx.last_filled_date,
          source_refills_filled: outcome.prescription.refills_filled === undefined ? null : String(outcome.prescription.refills_filled),
          updated_at: now,
        };
        await this.repo.updateTransferMedication(trx, medication.token, changes);
        moved.push({ medication: { ...medication, ...changes }, rx });
      } else {
        const { code, message } = outcome.rejection!;
        rejections.push(outcome.rejection!);
        await this.repo.updateTransferMedication(trx, medication.token, {
          status: 'rejected',
          rejection_reason: code,
          rejection_reason_other: code === 'TRANSFER_OTHER_REASON' ? (message ?? null) : null,
          updated_at: now,
        });
      }
    }
    const unanswered = medications.filter((m) => m.status === 'pending' && !answered.has(m.token));
    if (unanswered.length) {
      throw new OperationError('INVALID', `Every pending medication needs an outcome; missing ${unanswered.map((m) => m.token).join(', ')}.`);
    }
    if (!moved.length && !rejections.length) throw new OperationError('INVALID', 'At least one outcome is required.');

    if (!moved.length) {
      const first = rejections[0]!;
      await this.finish(trx, transfer, 'rejected', {
        cancel_reason: first.code,
        cancel_reason_other: first.code === 'TRANSFER_OTHER_REASON' ? (first.message ?? null) : null,
        updated_at: now,
      });
      await this.repo.addTransferMessage(trx, token, `Transfer rejected: ${TRANSFER_REJECTIONS[first.code]}.`, now);
      await emit(owner, events.transferError(transfer, first.code, first.message));
      return { transfer_token: token, status: 'rejected' as const, prescription_tokens: [] as string[] };
    }
    await this.finish(trx, transfer, 'completed', { completed_at: now, updated_at: now });
    await this.repo.addTransferMessage(trx, token, `Transfer completed: ${moved.length} medication(s) transferred.`, now);
    for (const { rx } of moved) await emit(owner, events.notifyRx(rx, this.deps.config.pharmacy));
    await emit(owner, events.transferSuccess(transfer, moved));
    return { transfer_token: token, status: 'completed' as const, prescription_tokens: moved.map((m) => m.rx.token) };
  }

  rejectTransfer(token: string, code: TransferRejectionCode, message?: string) {
    return this.run((trx, emit) => this.rejectTransferIn(trx, emit, token, code, message));
  }

  /** Rejects the whole request: every pending medication and the request take the code (`TRANSFER` error). */
  async rejectTransferIn(
    trx: Db,
    emit: Emit,
    token: string,
    code: TransferRejectionCode,
    message?: string,
  ) {
    validateRejection(code, message);
    const transfer = await this.pendingTransfer(trx, token);
    const now = nowIso();
    const other = code === 'TRANSFER_OTHER_REASON' ? (message ?? null) : null;
    for (const m of await this.repo.transferMedications(trx, token)) {
      if (m.status !== 'pending') continue;
      await this.repo.updateTransferMedication(trx, m.token, {
        status: 'rejected',
        rejection_reason: code,
        rejection_reason_other: other,
        updated_at: now,
      });
    }
    await this.finish(trx, transfer, 'rejected', { cancel_reason: code, cancel_reason_other: other, updated_at: now });
    await this.repo.addTransferMessage(trx, token, `Transfer rejected: ${TRANSFER_REJECTIONS[code]}.`, now);
    await emit(ownerOf(transfer), events.transferError(transfer, code, message));
    return { transfer_token: token, status: 'rejected' as const, error_code: code };
  }

  private async finish(trx: Db, transfer: TransferRequestsTable, status: 'completed' | 'rejected', changes: Partial<TransferRequestsTable>) {
    if (!(await this.repo.finishTransfer(trx, transfer.token, status, changes))) {
      throw new OperationError('NOT_PENDING', `Transfer ${transfer.token} is no longer pending.`);
    }
  }

  // ---- direct transfers ---------------------------------------------------------------------

  acceptDirectTransfer(token: string) {
    return this.run((trx, emit) => this.acceptDirectTransferIn(trx, emit, token));
  }

  /** Creates the prescription the direct transfer carried: `NOTIFY_RX` then `DIRECT_TRANSFER` success. */
  async acceptDirectTransferIn(trx: Db, emit: Emit, token: string) {
    const dt = await this.repo.directTransfer(trx, token);
    if (!dt) throw new OperationError('NOT_FOUND', `Direct transfer ${token} not found.`);
    const owner = ownerOf(dt);
    const submitted = JSON.parse(dt.prescription) as Schemas['DirectTransferPrescription'];
    const prescriber = JSON.parse(dt.prescriber) as Schemas['DirectTransferPrescriber'];
    const quantity = Math.round(Number.parseFloat(submitted.quantity_dispensed));
    const rx: PrescriptionsTable = {
      ...newPrescription(
        owner,
        dt.patient_token,
        {
          medication_name: submitted.medication_name,
          medication_sig: submitted.medication_sig,
          quantity: Number.isFinite(quantity) && quantity > 0 ? quantity : undefined,
          days_supply: submitted.days_supply,
          refills: submitted.refills_transferred,
          prescribed_ndc: submitted.prescribed_ndc,
          prescriber: `${prescriber.first_name} ${prescriber.last_name}`,
          prescriber_npi: prescriber.npi,
          written_date: submitted.written_date,
          last_filled_date: submitted.last_fill_date ?? null,
          is_daw: !submitted.can_substitute,
        },
        'direct_transfer',
      ),
      prescriber_token: dt.prescriber_token,
    };
    await this.repo.insertPrescription(trx, rx);
    const now = nowIso();
    if (!(await this.repo.finishDirectTransfer(trx, token, 'accepted', { prescription_token: rx.token, updated_at: now }))) {
      throw new OperationError('NOT_PENDING', `Direct transfer ${token} is ${dt.status}.`);
    }
    await emit(owner, events.notifyRx(rx, this.deps.config.pharmacy));
    await emit(owner, events.directTransferSuccess(dt, rx));
    return { direct_transfer_token: token, status: 'accepted' as const, prescription_token: rx.token };
  }

  rejectDirectTransfer(token: string, reason: string) {
    return this.run((trx, emit) => this.rejectDirectTransferIn(trx, emit, token, reason));
  }

  /** Rejects a direct transfer: only a `DIRECT_TRANSFER` error, whose message starts with the rejection notice. */
  async rejectDirectTransferIn(trx: Db, emit: Emit, token: string, reason: string) {
    if (!reason.trim()) throw new OperationError('INVALID', 'A rejection reason is required.');
    const dt = await this.repo.directTransfer(trx, token);
    if (!dt) throw new OperationError('NOT_FOUND', `Direct transfer ${token} not found.`);
    const message = events.directTransferRejectionMessage(reason);
    if (!(await this.repo.finishDirectTransfer(trx, token, 'rejected', { rejection_message: message, updated_at: nowIso() }))) {
      throw new OperationError('NOT_PENDING', `Direct transfer ${token} is ${dt.status}.`);
    }
    await emit(ownerOf(dt), events.directTransferError(dt, message));
    return { direct_transfer_token: token, status: 'rejected' as const, message };
  }

  // ---- electronic prescriptions ---------------------------------------------------------------

  /**
   * An electronic prescription received and matched to the owner's patient: the
   * prescription is stored and `NOTIFY_RX` names it, with the patient's look-alike records
   * (same names and date of birth, other identity data) as `patient_token_duplicates`.
   * An unknown patient is refused as the patients service refuses it.
   */
  async receiveElectronicPrescription(owner: Owner, patientToken: string, input: PrescriptionInput) {
    const patient = await this.deps.patients.get(owner, patientToken);
    return this.run(async (trx, emit) => {
      const rx = newPrescription(owner, patient.token, input, 'electronic');
      await this.repo.insertPrescription(trx, rx);
      const duplicates = await this.repo.duplicatePatients(trx, owner, patient.token);
      await emit(owner, events.notifyRx(rx, this.deps.config.pharmacy, { duplicates }));
      return { prescription_token: rx.token, patient_token: patient.token, patient_token_duplicates: duplicates };
    });
  }

  // ---- fill requests and orders ---------------------------------------------------------------

  dispenseFill(fillRequestToken: string) {
    return this.run((trx, emit) => this.dispenseFillIn(trx, emit, fillRequestToken));
  }

  /** Fills a pending (or triaged) fill request: its order, pending shipment, and `ORDER` success. */
  async dispenseFillIn(trx: Db, emit: Emit, fillRequestToken: string) {
    const request = await this.repo.fillRequest(trx, fillRequestToken);
    if (!request) throw new OperationError('NOT_FOUND', `Fill request ${fillRequestToken} not found.`);
    if (request.status !== 'pending' && request.status !== 'triage') {
      throw new OperationError('NOT_PENDING', `Fill request ${fillRequestToken} is ${request.status}.`);
    }
    const order = await this.orders.createForFillRequestIn(trx, fillRequestToken);
    await emit(ownerOf(order), events.orderFilled(order));
    return { fill_request_token: fillRequestToken, order_token: order.token, status: order.status };
  }

  triageFill(fillRequestToken: string, message?: string) {
    return this.run((trx, emit) => this.holdFillIn(trx, emit, fillRequestToken, 'triage', message ?? 'A pharmacist is reviewing the order.'));
  }

  failFill(fillRequestToken: string, message: string) {
    return this.run((trx, emit) => this.holdFillIn(trx, emit, fillRequestToken, 'error', message));
  }

  /** A fill request put to a pharmacist (`triage`) or refused (`error`): `ORDER` with that status, no order. */
  async holdFillIn(
    trx: Db,
    emit: Emit,
    fillRequestToken: string,
    status: 'triage' | 'error',
    message: string,
  ) {
    const request = await this.repo.fillRequest(trx, fillRequestToken);
    if (!request) throw new OperationError('NOT_FOUND', `Fill request ${fillRequestToken} not found.`);
    if (!message.trim()) throw new OperationError('INVALID', 'A message is required.');
    if (!(await this.repo.setFillRequestStatus(trx, fillRequestToken, status, nowIso()))) {
      throw new OperationError('NOT_PENDING', `Fill request ${fillRequestToken} is ${request.status}.`);
    }
    await emit(ownerOf(request), events.orderNotFilled(request, status, message));
    return { fill_request_token: fillRequestToken, status };
  }

  recordShipment(orderToken: string, status: ShipmentStatus, options: { carrier?: string; tracking_number?: string; eta?: string } = {}) {
    return this.run((trx, emit) => this.recordShipmentIn(trx, emit, orderToken, status, options));
  }

  /**
   * A carrier milestone of an order: `SHIPMENT` with it. The first one assigns the carrier
   * and tracking number; the order becomes `shipped`, then `delivered` or `returned`.
   */
  async recordShipmentIn(
    trx: Db,
    emit: Emit,
    orderToken: string,
    status: ShipmentStatus,
    options: { carrier?: string; tracking_number?: string; eta?: string } = {},
  ) {
    if (!SHIPMENT_STATUSES.includes(status)) {
      throw new OperationError('INVALID', `Shipment status must be one of ${SHIPMENT_STATUSES.join(', ')}.`);
    }
    const order = await this.repo.order(trx, orderToken);
    if (!order) throw new OperationError('NOT_FOUND', `Order ${orderToken} not found.`);
    const family = CARRIERS[order.shipping_method.startsWith('fedex') ? 'fedex' : 'usps']!;
    const tracking = order.tracking_number ?? options.tracking_number ?? trackingNumber(family.digits);
    const changes: Partial<OrdersTable> = {
      status: status === 'DELIVERED' ? 'delivered' : status === 'RETURNED' ? 'returned' : 'shipped',
      carrier: order.carrier ?? options.carrier ?? family.carrier,
      tracking_number: tracking,
      tracking_url: order.tracking_url ?? family.url(tracking),
    };
    if (!(await this.repo.updateOrderShipment(trx, orderToken, changes))) {
      throw new OperationError('NOT_PENDING', `Order ${orderToken} is ${order.status}.`);
    }
    const eta = status === 'DELIVERED' || status === 'RETURNED' ? null : (options.eta ?? new Date(Date.now() + 2 * 86_400_000).toISOString());
    await emit(ownerOf(order), events.shipment({ ...order, ...changes }, status, eta));
    return { order_token: orderToken, status: changes.status!, shipment_status: status, tracking_number: tracking };
  }
}

function validateRejection(code: string, message: string | undefined): asserts code is TransferRejectionCode {
  if (!isRejectionCode(code)) throw new OperationError('INVALID', `Unknown rejection code ${code}.`);
  if (message !== undefined && code !== 'TRANSFER_OTHER_REASON') {
    throw new OperationError('INVALID', 'A message is given only with TRANSFER_OTHER_REASON.');
  }
}
