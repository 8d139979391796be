import { ownerOfRow } from '../db/ownership.js';
import { existing, LifecycleError } from '../errors.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import type { PrescriptionInput, PrescriptionIntake } from '../prescriptions/prescription-intake.js';
import type { PrescriptionsTable } from '../prescriptions/prescription-tables.js';
import { nowIso } from '../tokens.js';
import { isRejectionCode, TRANSFER_REJECTIONS, type TransferContactErrorCode, type TransferRejectionCode } from './rejection-codes.js';
import * as events from './transfer-events.js';
import { newTransferMedication, type TransferMedicationRow, type TransferRepository, type TransferRow } from './transfer-repository.js';

interface ContactInput {
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

/** A transfer request with its medications, as an action reads it. */
interface TransferInProgress {
  transfer: TransferRow;
  medications: TransferMedicationRow[];
}

function checkRejection(code: string, message: string | undefined): asserts code is TransferRejectionCode {
  if (!isRejectionCode(code)) throw new LifecycleError('INVALID', `Unknown rejection code ${code}.`);
  if (message !== undefined && code !== 'TRANSFER_OTHER_REASON') {
    throw new LifecycleError('INVALID', 'A message is given only with TRANSFER_OTHER_REASON.');
  }
}

/**
 * What pharmacy staff do with a transfer request: contact the other party, then complete
 * it (each transferred medication becomes a prescription) or reject it. Each action changes
 * the records and records its events in the caller's unit of work. Staff run them with the
 * admin commands; the sandbox's simulated pharmacy runs them by itself.
 */
export class TransferLifecycle {
  constructor(
    private readonly transfers: TransferRepository,
    private readonly intake: PrescriptionIntake,
  ) {}

  /** The transfer request and its medications (any customer's: staff and the sandbox act on tokens). */
  async find(uow: UnitOfWork, token: string): Promise<TransferInProgress> {
    const transfer = await this.transfer(uow, token);
    return { transfer, medications: await this.transfers.medicationsOf([token], uow.trx) };
  }

  /**
   * Contacts the pharmacy (or prescriber) of a transfer request: `TRANSFER_CONTACT` success;
   * `error` when the request is no longer pending, the method is not fax or phone or the
   * request has no number for it, or the attempt failed (`failure`).
   */
  async contact(uow: UnitOfWork, token: string, input: ContactInput) {
    const transfer = await this.transfer(uow, token);
    const owner = ownerOfRow(transfer);
    const now = nowIso();
    const fail = async (code: TransferContactErrorCode | TransferRejectionCode) => {
      await uow.emit(owner, events.transferContactError(transfer, code));
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
      await this.transfers.addMessage(token, `Contact by ${method} failed.`, now, uow.trx);
      return fail(input.failure);
    }
    await this.transfers.addMessage(token, `Contacted ${name} by ${method}.`, now, uow.trx);
    await this.transfers.touch(token, now, uow.trx);
    await uow.emit(owner, events.transferContactSuccess(transfer, { name, method, number }));
    return { transfer_token: token, status: 'success' as const, contact_name: name, contact_method: method, contact_number: number };
  }

  /**
   * Records the other party's answer for every pending medication: each transferred one
   * becomes a prescription of the patient (`NOTIFY_RX` each) and the request `completed`
   * (`TRANSFER` success); when none was transferred the request is `rejected` with the
   * first rejection code (`TRANSFER` error).
   */
  async complete(uow: UnitOfWork, token: string, outcomes: TransferOutcome[]) {
    const { transfer, medications } = await this.pending(uow, token);
    const owner = ownerOfRow(transfer);
    const now = nowIso();
    const byToken = new Map(medications.map((m) => [m.token, m]));
    let position = medications.reduce((max, m) => Math.max(max, m.position + 1), 0);
    const answered = new Set<string>();
    const moved: { medication: TransferMedicationRow; rx: PrescriptionsTable }[] = [];
    const rejections: { code: TransferRejectionCode; message?: string }[] = [];

    for (const [i, outcome] of outcomes.entries()) {
      if (!outcome.prescription === !outcome.rejection) {
        throw new LifecycleError('INVALID', `Outcome ${i} needs either a prescription or a rejection.`);
      }
      if (outcome.rejection) checkRejection(outcome.rejection.code, outcome.rejection.message);
      let medication: TransferMedicationRow | undefined;
      if (outcome.transfer_medication_token !== undefined) {
        medication = byToken.get(outcome.transfer_medication_token);
        if (!medication) throw new LifecycleError('INVALID', `Outcome ${i}: no medication ${outcome.transfer_medication_token} in transfer ${token}.`);
        if (medication.status !== 'pending' || answered.has(medication.token)) {
          throw new LifecycleError('INVALID', `Outcome ${i}: medication ${medication.token} was already answered.`);
        }
      } else {
        if (!transfer.all_medications) {
          throw new LifecycleError('INVALID', `Outcome ${i} must name a transfer_medication_token (the request listed its medications).`);
        }
        const name = outcome.medication_name ?? outcome.prescription?.medication_name;
        if (!name) throw new LifecycleError('INVALID', `Outcome ${i} needs a medication_name.`);
        medication = newTransferMedication(token, position++, name, now);
        await this.transfers.insertMedication(medication, uow.trx);
      }
      answered.add(medication.token);
      if (outcome.prescription) {
        const rx = await this.intake.receive(uow, owner, transfer.patient_token, outcome.prescription, 'transfer');
        const changes = {
          status: 'transferred' as const,
          prescription_token: rx.token,
          source_last_filled_date: rx.last_filled_date,
          source_refills_filled: outcome.prescription.refills_filled === undefined ? null : String(outcome.prescription.refills_filled),
          updated_at: now,
        };
        await this.transfers.updateMedication(medication.token, changes, uow.trx);
        moved.push({ medication: { ...medication, ...changes }, rx });
      } else {
        const { code, message } = outcome.rejection!;
        rejections.push(outcome.rejection!);
        await this.transfers.updateMedication(
          medication.token,
          { status: 'rejected', rejection_reason: code, rejection_reason_other: code === 'TRANSFER_OTHER_REASON' ? (message ?? null) : null, updated_at: now },
          uow.trx,
        );
      }
    }
    const unanswered = medications.filter((m) => m.status === 'pending' && !answered.has(m.token));
    if (unanswered.length) {
      throw new LifecycleError('INVALID', `Every pending medication needs an outcome; missing ${unanswered.map((m) => m.token).join(', ')}.`);
    }
    if (!moved.length && !rejections.length) throw new LifecycleError('INVALID', 'At least one outcome is required.');

    if (!moved.length) {
      const first = rejections[0]!;
      await this.finish(uow, transfer, 'rejected', {
        cancel_reason: first.code,
        cancel_reason_other: first.code === 'TRANSFER_OTHER_REASON' ? (first.message ?? null) : null,
        updated_at: now,
      });
      await this.transfers.addMessage(token, `Transfer rejected: ${TRANSFER_REJECTIONS[first.code]}.`, now, uow.trx);
      await uow.emit(owner, events.transferError(transfer, first.code, first.message));
      return { transfer_token: token, status: 'rejected' as const, prescription_tokens: [] as string[] };
    }
    await this.finish(uow, transfer, 'completed', { completed_at: now, updated_at: now });
    await this.transfers.addMessage(token, `Transfer completed: ${moved.length} medication(s) transferred.`, now, uow.trx);
    await uow.emit(owner, events.transferSuccess(transfer, moved));
    return { transfer_token: token, status: 'completed' as const, prescription_tokens: moved.map((m) => m.rx.token) };
  }

  /** Rejects the whole request: every pending medication and the request take the code (`TRANSFER` error). */
  async reject(uow: UnitOfWork, token: string, code: TransferRejectionCode, message?: string) {
    checkRejection(code, message);
    const { transfer, medications } = await this.pending(uow, token);
    const now = nowIso();
    const other = code === 'TRANSFER_OTHER_REASON' ? (message ?? null) : null;
    for (const m of medications) {
      if (m.status !== 'pending') continue;
      await this.transfers.updateMedication(m.token, { status: 'rejected', rejection_reason: code, rejection_reason_other: other, updated_at: now }, uow.trx);
    }
    await this.finish(uow, transfer, 'rejected', { cancel_reason: code, cancel_reason_other: other, updated_at: now });
    await this.transfers.addMessage(token, `Transfer rejected: ${TRANSFER_REJECTIONS[code]}.`, now, uow.trx);
    await uow.emit(ownerOfRow(transfer), events.transferError(transfer, code, message));
    return { transfer_token: token, status: 'rejected' as const, error_code: code };
  }

  private async transfer(uow: UnitOfWork, token: string): Promise<TransferRow> {
    return existing(await this.transfers.findByToken(token, uow.trx), `Transfer ${token}`);
  }

  private async pending(uow: UnitOfWork, token: string): Promise<TransferInProgress> {
    const found = await this.find(uow, token);
    if (found.transfer.status !== 'pending') throw new LifecycleError('NOT_PENDING', `Transfer ${token} is ${found.transfer.status}.`);
    return found;
  }

  private async finish(uow: UnitOfWork, transfer: TransferRow, status: 'completed' | 'rejected', changes: Partial<TransferRow>) {
    if (!(await this.transfers.finish(transfer.token, status, changes, uow.trx))) {
      throw new LifecycleError('NOT_PENDING', `Transfer ${transfer.token} is no longer pending.`);
    }
  }
}
