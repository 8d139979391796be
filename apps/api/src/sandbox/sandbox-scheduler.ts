import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { nowIso, randomToken } from '../tokens.js';
import type { SandboxSubject } from './sandbox-tables.js';

/**
 * Schedules the sandbox's simulated pharmacy to carry a new transfer request, direct
 * transfer or fill request through its lifecycle. Called in the unit of work that creates
 * the subject, so the schedule exists exactly when the subject does. Production records are
 * left to pharmacy staff: for them it does nothing.
 */
export class SandboxScheduler {
  constructor(private readonly stepDelayMs: number) {}

  async schedule(trx: Db, owner: Owner, subject: SandboxSubject, subjectToken: string): Promise<void> {
    if (owner.environment !== 'sandbox') return;
    const now = nowIso();
    await trx
      .insertInto('sandbox_steps')
      .values({
        id: `sbx_${randomToken(20)}`,
        customer_id: owner.customerId,
        environment: owner.environment,
        subject,
        subject_token: subjectToken,
        step: 0,
        run_at: new Date(Date.parse(now) + this.stepDelayMs).toISOString(),
        locked_until: null,
        state: 'scheduled',
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
}
