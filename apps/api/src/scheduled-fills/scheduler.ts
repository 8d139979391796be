import type { FastifyBaseLogger } from 'fastify';
import type { RefillConfig } from '../config.js';
import type { JobClaims, JobTable } from '../db/job-claims.js';
import type { ScheduledActionRow } from './scheduled-action-repository.js';
import type { ActionType } from './scheduled-action-tables.js';

/**
 * Performs one due action. It starts its unit of work by finishing the action
 * (`ScheduledActionRepository.finish`, conditional on it being pending), so an action two
 * processes both claimed is performed once; an action that is not due after all (a refill
 * still too soon) is moved to its new date instead.
 */
export type Performer = (action: ScheduledActionRow) => Promise<void>;

const DUE: JobTable<'scheduled_actions'> = { table: 'scheduled_actions', dueAt: 'submit_on', state: { column: 'status', values: ['PENDING'] } };
/** How long a claimed action is left to its process: one that died mid-action is taken again after this. */
export const ACTION_LEASE_MS = 60_000;

/**
 * The scheduler: claims due scheduled actions (held fill requests, auto-refill cycles)
 * with the house's one job mechanism (leases; `SKIP LOCKED` on PostgreSQL, so processes
 * sharing a database claim disjoint actions) and has each performed by its area. It keeps
 * nothing in memory: a restart finds the same pending actions in the database.
 */
export class Scheduler {
  constructor(
    private readonly jobs: JobClaims,
    private readonly performers: Record<ActionType, Performer>,
    private readonly config: RefillConfig,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** Performs the actions due now; answers how many it claimed. */
  async tick(): Promise<number> {
    const due = await this.jobs.claim(DUE, this.config.batch, ACTION_LEASE_MS);
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const action = due[next++]!;
        try {
          await this.performers[action.action_type](action);
        } catch (error) {
          // Left leased: taken again once the lease expires (performing is idempotent).
          this.log?.error({ action: action.id, action_type: action.action_type, err: { type: (error as Error)?.name, message: (error as Error)?.message } }, 'scheduled action failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, due.length) }, worker));
    return due.length;
  }
}
