import type { components } from '@pharmacy/contract';
import { ownerOfRow } from '../db/ownership.js';
import { existing, LifecycleError } from '../errors.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import type { PrescriptionIntake } from '../prescriptions/prescription-intake.js';
import { nowIso } from '../tokens.js';
import * as events from './direct-transfer-events.js';
import type { DirectTransferRepository, DirectTransferRow } from './direct-transfer-repository.js';

type Schemas = components['schemas'];

/**
 * What pharmacy staff do with a direct transfer: accept it (the prescription it carried is
 * created) or reject it, each with its events in the caller's unit of work.
 */
export class DirectTransferLifecycle {
  constructor(
    private readonly directTransfers: DirectTransferRepository,
    private readonly intake: PrescriptionIntake,
  ) {}

  /** The direct transfer (any customer's: staff and the sandbox act on tokens). */
  async find(uow: UnitOfWork, token: string): Promise<DirectTransferRow> {
    return existing(await this.directTransfers.findByToken(token, uow.trx), `Direct transfer ${token}`);
  }

  /** Creates the prescription the direct transfer carried: `NOTIFY_RX` then `DIRECT_TRANSFER` success. */
  async accept(uow: UnitOfWork, token: string) {
    const dt = await this.find(uow, token);
    const owner = ownerOfRow(dt);
    const submitted = JSON.parse(dt.prescription) as Schemas['DirectTransferPrescription'];
    const prescriber = JSON.parse(dt.prescriber) as Schemas['DirectTransferPrescriber'];
    const quantity = Math.round(Number.parseFloat(submitted.quantity_dispensed));
    const rx = await this.intake.receive(
      uow,
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
      { prescriberToken: dt.prescriber_token },
    );
    if (!(await this.directTransfers.finish(token, 'accepted', { prescription_token: rx.token, updated_at: nowIso() }, uow.trx))) {
      throw new LifecycleError('NOT_PENDING', `Direct transfer ${token} is ${dt.status}.`);
    }
    await uow.emit(owner, events.directTransferSuccess(dt, rx));
    return { direct_transfer_token: token, status: 'accepted' as const, prescription_token: rx.token };
  }

  /** Rejects a direct transfer: only a `DIRECT_TRANSFER` error, whose message starts with the rejection notice. */
  async reject(uow: UnitOfWork, token: string, reason: string) {
    if (!reason.trim()) throw new LifecycleError('INVALID', 'A rejection reason is required.');
    const dt = await this.find(uow, token);
    const message = events.directTransferRejectionMessage(reason);
    if (!(await this.directTransfers.finish(token, 'rejected', { rejection_message: message, updated_at: nowIso() }, uow.trx))) {
      throw new LifecycleError('NOT_PENDING', `Direct transfer ${token} is ${dt.status}.`);
    }
    await uow.emit(ownerOfRow(dt), events.directTransferError(dt, message));
    return { direct_transfer_token: token, status: 'rejected' as const, message };
  }
}
