import { PostgresAdapter } from 'kysely';
import type { Db } from '../db/database.js';
import type { Transactor } from '../db/transactor.js';
import type { components } from '@pharmacy/contract';
import { OperationError, type Emit, type PharmacyOperations, type TransferOutcome } from '../operations/pharmacy-operations.js';
import { OperationsRepository } from '../operations/operations-repository.js';
import type { PrescriptionInput } from '../operations/prescription-intake.js';
import { SANDBOX_PRESCRIPTION_DEFAULTS } from './sandbox-prescriptions.js';
import { nowIso } from '../tokens.js';
import { directTransferRejected, fillTrigger, transferTrigger } from './sandbox-triggers.js';
import type { SandboxStepsTable } from './sandbox-tables.js';

type Schemas = components['schemas'];

/** What a step answers: more steps follow, or the lifecycle is over. */
type StepOutcome = 'next' | 'done';

/** How long a worker holds a claimed step before another may take it over. */
const CLAIM_MS = 60_000;
/** Steps claimed per tick. */
const BATCH = 20;
/** A step that failed for a passing reason (the database) is tried again after this pause. */
const RETRY_MS = 5_000;

/** The prescription the simulated transferring pharmacy reports for a requested medication. */
export function sandboxTransferredPrescription(medicationName: string): PrescriptionInput & { refills_filled: number } {
  return {
    ...SANDBOX_PRESCRIPTION_DEFAULTS,
    medication_name: medicationName,
    refills: 3,
    refills_filled: 1,
    prescriber_npi: '1234567893',
    written_date: new Date(Date.now() - 60 * 86_400_000).toISOString(),
    last_filled_date: new Date(Date.now() - 30 * 86_400_000).toISOString(),
  };
}

/** The medication reported for a transfer request of every medication. */
const ALL_MEDICATIONS_EXAMPLE = 'Lisinopril 10 mg tablet';

/**
 * The sandbox's simulated pharmacy: claims due steps of the lifecycles the scheduler
 * recorded and performs them through the pharmacy's operations, each step and the advance
 * of its schedule in one unit of work. Scripts:
 * - transfer: TRANSFER_CONTACT, then NOTIFY_RX per medication + TRANSFER success (or a TRANSFER error);
 * - direct transfer: NOTIFY_RX + DIRECT_TRANSFER success, or a DIRECT_TRANSFER error;
 * - fill request: ORDER, then SHIPMENT IN_TRANSIT, OUT_FOR_DELIVERY, DELIVERED.
 * See sandbox-triggers.ts for forced outcomes.
 */
export class SandboxSimulator {
  private readonly postgres: boolean;
  /** The records a step reads, in the step's unit of work. */
  private readonly records = new OperationsRepository();

  constructor(
    private readonly db: Db,
    private readonly transactor: Transactor,
    private readonly operations: PharmacyOperations,
    private readonly stepDelayMs: number,
  ) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /** Performs every due step it can claim; answers how many it handled. */
  async tick(): Promise<number> {
    const steps = await this.claim();
    for (const step of steps) await this.perform(step);
    return steps.length;
  }

  /**
   * Claims due steps atomically (one statement): on PostgreSQL the candidates are locked
   * with FOR UPDATE SKIP LOCKED, so concurrent workers never claim the same row.
   */
  private async claim(): Promise<SandboxStepsTable[]> {
    const now = nowIso();
    const until = new Date(Date.parse(now) + CLAIM_MS).toISOString();
    let due = this.db
      .selectFrom('sandbox_steps')
      .select('id')
      .where('state', '=', 'scheduled')
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('run_at')
      .limit(BATCH);
    // Most ticks find nothing: a plain read first keeps idle polling from writing.
    if (!(await due.executeTakeFirst())) return [];
    if (this.postgres) due = due.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable('sandbox_steps')
      .set({ locked_until: until })
      .where('id', 'in', due)
      .returningAll()
      .execute();
    return rows.sort((a, b) => a.run_at.localeCompare(b.run_at));
  }

  private async perform(step: SandboxStepsTable): Promise<void> {
    try {
      await this.transactor.run(async (trx) => {
        const now = nowIso();
        // Advance first: the row lock serializes workers, and a step already taken elsewhere is not taken twice.
        const advanced = await trx
          .updateTable('sandbox_steps')
          .set({ step: step.step + 1, updated_at: now })
          .where('id', '=', step.id)
          .where('step', '=', step.step)
          .where('state', '=', 'scheduled')
          .executeTakeFirst();
        if (Number(advanced.numUpdatedRows) !== 1) return;
        const outcome = await this.operations.within(trx, (t, emit) => this.script(t, emit, step)).then((r) => r.outcome);
        await trx
          .updateTable('sandbox_steps')
          .set(
            outcome === 'done'
              ? { state: 'done', locked_until: null }
              : { run_at: new Date(Date.now() + this.stepDelayMs).toISOString(), locked_until: null },
          )
          .where('id', '=', step.id)
          .execute();
      });
    } catch (error) {
      // A refused action (the record moved on, for example by staff) ends the lifecycle; anything else is retried later.
      const refused = error instanceof OperationError;
      await this.db
        .updateTable('sandbox_steps')
        .set({
          ...(refused ? { state: 'failed' } : { run_at: new Date(Date.now() + RETRY_MS).toISOString() }),
          locked_until: null,
          last_error: (error as Error)?.message?.slice(0, 500) ?? 'unknown error',
          updated_at: nowIso(),
        })
        .where('id', '=', step.id)
        .execute();
    }
  }

  private async script(trx: Db, emit: Emit, step: SandboxStepsTable): Promise<{ outcome: StepOutcome }> {
    switch (step.subject) {
      case 'transfer':
        return { outcome: await this.transferStep(trx, emit, step.subject_token, step.step) };
      case 'direct_transfer':
        return { outcome: await this.directTransferStep(trx, emit, step.subject_token) };
      case 'fill_request':
        return { outcome: await this.fillStep(trx, emit, step.subject_token, step.step) };
      default:
        throw new OperationError('INVALID', `Unknown sandbox subject ${String(step.subject)}.`);
    }
  }

  private async transferStep(trx: Db, emit: Emit, token: string, index: number): Promise<StepOutcome> {
    const transfer = await this.records.transfer(trx, token);
    if (!transfer) throw new OperationError('NOT_FOUND', `Transfer ${token} not found.`);
    const trigger = transferTrigger(transfer.notes, transfer.metadata);
    const ops = this.operations;
    if (index === 0) {
      const method = transfer.pharmacy_fax || transfer.prescriber_fax ? 'fax' : 'phone';
      await ops.contactTransferIn(trx, emit, token, {
        contact_method: method,
        ...(trigger.kind === 'contact_error' ? { failure: 'TRANSFER_CONTACT_INFO_INCORRECT' as const } : {}),
      });
      return 'next';
    }
    if (trigger.kind === 'contact_error') {
      await ops.rejectTransferIn(trx, emit, token, 'TRANSFER_CONTACT_INFO_INCORRECT');
    } else if (trigger.kind === 'reject') {
      const specifics = trigger.code === 'TRANSFER_OTHER_REASON' ? 'Sandbox: rejected on request (sandbox:reject).' : undefined;
      await ops.rejectTransferIn(trx, emit, token, trigger.code, specifics);
    } else {
      const medications = (await this.records.transferMedications(trx, token)).filter((m) => m.status === 'pending');
      const outcomes: TransferOutcome[] = medications.length
        ? medications.map((m) => ({ transfer_medication_token: m.token, prescription: sandboxTransferredPrescription(m.medication_name) }))
        : [{ medication_name: ALL_MEDICATIONS_EXAMPLE, prescription: sandboxTransferredPrescription(ALL_MEDICATIONS_EXAMPLE) }];
      await ops.completeTransferIn(trx, emit, token, outcomes);
    }
    return 'done';
  }

  private async directTransferStep(trx: Db, emit: Emit, token: string): Promise<StepOutcome> {
    const dt = await this.records.directTransfer(trx, token);
    if (!dt) throw new OperationError('NOT_FOUND', `Direct transfer ${token} not found.`);
    const rx = JSON.parse(dt.prescription) as Schemas['DirectTransferPrescription'];
    if (directTransferRejected(rx.number, rx.medication_sig)) {
      await this.operations.rejectDirectTransferIn(trx, emit, token, 'the prescription has no refills left to transfer');
    } else {
      await this.operations.acceptDirectTransferIn(trx, emit, token);
    }
    return 'done';
  }

  private async fillStep(trx: Db, emit: Emit, token: string, index: number): Promise<StepOutcome> {
    const request = await this.records.fillRequest(trx, token);
    if (!request) throw new OperationError('NOT_FOUND', `Fill request ${token} not found.`);
    const trigger = fillTrigger(request.metadata);
    const ops = this.operations;
    if (index === 0) {
      if (trigger === 'triage') {
        await ops.holdFillIn(trx, emit, token, 'triage', 'A pharmacist is reviewing the order (sandbox:triage).');
        return 'done';
      }
      if (trigger === 'error') {
        await ops.holdFillIn(trx, emit, token, 'error', 'The order could not be filled (sandbox:error).');
        return 'done';
      }
      await ops.dispenseFillIn(trx, emit, token);
      return 'next';
    }
    if (!request.order_token) throw new OperationError('INVALID', `Fill request ${token} has no order.`);
    const milestones = trigger === 'returned' ? (['IN_TRANSIT', 'RETURNED'] as const) : (['IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'] as const);
    const status = milestones[index - 1];
    if (!status) return 'done';
    await ops.recordShipmentIn(trx, emit, request.order_token, status);
    return index === milestones.length ? 'done' : 'next';
  }
}
