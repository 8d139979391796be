import type { Owned } from '../db/ownership.js';
import type { LifecycleSubject } from '../events/unit-of-work.js';

/**
 * One lifecycle the sandbox's simulated pharmacy is carrying out: the next step to take on
 * a transfer request, a direct transfer or a fill request, and when. Written in the unit
 * of work that creates the subject, advanced in the unit of work of each step, so the
 * schedule survives restarts and a step's effects and its advance commit together.
 */
export interface SandboxStepsTable extends Owned {
  id: string;
  subject: LifecycleSubject;
  /** The transfer request's, direct transfer's or fill request's token. */
  subject_token: string;
  /** Index of the next step of the subject's script (0 first). */
  step: number;
  /** When the next step is due (ISO 8601). */
  run_at: string;
  /** A worker's claim on the row until then (several processes may share PostgreSQL). */
  locked_until: string | null;
  /** `scheduled` until the script ends (`done`) or a step fails for good (`failed`). */
  state: string;
  /** The failing step's error message (no health data: messages name tokens and codes only). */
  last_error: string | null;
  /** The request that created the subject (an API request's id, `x-request-id`): each step logs it and its events carry it. */
  origin_request_id: string | null;
  /** The `simulation` object the create sent (JSON), which forces the lifecycle's outcome; null without one. */
  simulation: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    sandbox_steps: SandboxStepsTable;
  }
}
