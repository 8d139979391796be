import type { FastifyBaseLogger } from 'fastify';
import type { Selectable } from 'kysely';
import { updatedOneRow } from '../db/database.js';
import type { JobClaims, JobTable } from '../db/job-claims.js';
import { assertedWrite } from '../db/transactor.js';
import { LifecycleError } from '../errors.js';
import type { SandboxSimulation } from '../events/sandbox-simulation.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import { nowIso } from '../tokens.js';
import type { SandboxScripts } from './sandbox-script.js';
import type { SandboxStepsTable } from './sandbox-tables.js';
import { nowMs } from '../clock.js';

type SandboxStep = Selectable<SandboxStepsTable>;

/** The simulated pharmacy's steps: due at `run_at` while their lifecycle is scheduled. */
const STEPS: JobTable<'sandbox_steps'> = { table: 'sandbox_steps', dueAt: 'run_at', state: { column: 'state', values: ['scheduled'] } };

/** How long a worker holds a claimed step before another may take it over. */
const CLAIM_MS = 60_000;
/** Steps claimed per tick. */
const BATCH = 20;
/** A step that failed for a passing reason (the database) is tried again after this pause. */
const RETRY_MS = 5_000;

/**
 * The sandbox's simulated pharmacy: claims due steps of the lifecycles the scheduler
 * recorded and performs each through its subject's script (sandbox/scripts/), the step and
 * the advance of its schedule in one unit of work, which carries the request that created
 * the subject. Forced outcomes: sandbox-triggers.ts.
 */
export class SandboxSimulator {
  constructor(
    private readonly jobs: JobClaims,
    private readonly units: UnitsOfWork,
    private readonly scripts: SandboxScripts,
    private readonly stepDelayMs: number,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** Performs every due step it can claim; answers how many it handled. */
  async tick(): Promise<number> {
    const steps = await this.jobs.claim(STEPS, BATCH, CLAIM_MS);
    for (const step of steps) await this.perform(step);
    return steps.length;
  }

  private async perform(step: SandboxStep): Promise<void> {
    const requestId = step.origin_request_id ?? step.id;
    const about = { reqId: requestId, job: 'sandbox-step', subject: step.subject, subject_token: step.subject_token, step: step.step };
    try {
      const outcome = await this.units.run(requestId, async (uow) => {
        // Advance first: the row lock serializes workers, and a step already taken elsewhere is
        // not taken twice. The step is claimed, so another worker seldom took it meanwhile: the
        // advance is asserted (assertedWrite), sent with the step's next statement in an
        // optimistic unit of work, which runs again, without optimism, to skip it when it was.
        const advance = uow.trx
          .updateTable('sandbox_steps')
          .set({ step: step.step + 1, updated_at: nowIso() })
          .where('id', '=', step.id)
          .where('step', '=', step.step)
          .where('state', '=', 'scheduled')
          .compile();
        const advanced = await uow.trx.executeQuery(assertedWrite(advance));
        if (!updatedOneRow({ numUpdatedRows: advanced.numAffectedRows ?? 0n })) return 'skipped' as const;
        const script = this.scripts[step.subject];
        if (!script) throw new LifecycleError('INVALID', `Unknown sandbox subject ${String(step.subject)}.`);
        const simulation = step.simulation === null ? undefined : (JSON.parse(step.simulation) as SandboxSimulation);
        const next = await script(uow, step.subject_token, step.step, simulation);
        await uow.trx
          .updateTable('sandbox_steps')
          .set(
            next === 'done'
              ? { state: 'done', locked_until: null }
              : { run_at: new Date(nowMs() + this.stepDelayMs).toISOString(), locked_until: null },
          )
          .where('id', '=', step.id)
          .execute();
        return next;
      });
      if (outcome !== 'skipped') this.log?.info({ ...about, outcome }, 'sandbox step performed');
    } catch (error) {
      // A refused action (the record moved on, for example by staff) ends the lifecycle; anything else is retried later.
      const refused = error instanceof LifecycleError;
      const message = (error as Error)?.message?.slice(0, 500) ?? 'unknown error';
      this.log?.warn({ ...about, err: { message }, next: refused ? 'failed' : 'retry' }, 'sandbox step failed');
      await this.units.run(requestId, (uow) =>
        uow.trx
          .updateTable('sandbox_steps')
          .set({
            ...(refused ? { state: 'failed' } : { run_at: new Date(nowMs() + RETRY_MS).toISOString() }),
            locked_until: null,
            last_error: message,
            updated_at: nowIso(),
          })
          .where('id', '=', step.id)
          .execute(),
      );
    }
  }
}
