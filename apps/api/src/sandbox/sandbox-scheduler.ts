import type { Owner } from '../auth/principal.js';
import type { Compilable } from 'kysely';
import { ownerColumns } from '../db/ownership.js';
import { insertRows } from '../db/transactor.js';
import type { SandboxSimulation } from '../events/sandbox-simulation.js';
import type { LifecycleSubject, UnitOfWork } from '../events/unit-of-work.js';
import { nowIso, recordToken } from '../tokens.js';

/**
 * Schedules the sandbox's simulated pharmacy to carry a new transfer request, direct
 * transfer or fill request through its lifecycle. It runs in the unit of work that creates
 * the subject (the units of work call it when a lifecycle starts), so the schedule exists
 * exactly when the subject does, with the `simulation` the create sent (kept as JSON, so
 * every later step plays the outcome it asked for). Production records are left to
 * pharmacy staff.
 */
export class SandboxScheduler {
  constructor(private readonly stepDelayMs: number) {}

  /** The insert of the subject's first step (none outside the sandbox), for the unit of work to send with its own (executeInserts). */
  firstStep(uow: UnitOfWork, owner: Owner, subject: LifecycleSubject, subjectToken: string, simulation?: SandboxSimulation): Compilable[] {
    if (owner.environment !== 'sandbox') return [];
    const now = nowIso();
    return [
      insertRows(uow.trx, 'sandbox_steps', [
        {
          id: `sbx_${recordToken(20)}`,
          ...ownerColumns(owner),
          subject,
          subject_token: subjectToken,
          step: 0,
          run_at: new Date(Date.parse(now) + this.stepDelayMs).toISOString(),
          locked_until: null,
          state: 'scheduled',
          last_error: null,
          origin_request_id: uow.requestId,
          simulation: simulation === undefined ? null : JSON.stringify(simulation),
          created_at: now,
          updated_at: now,
        },
      ]),
    ];
  }
}
