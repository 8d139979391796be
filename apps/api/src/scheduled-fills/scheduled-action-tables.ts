import type { Owned } from '../db/ownership.js';

/** What a scheduled action does (ScheduledAction `action_type`). */
export type ActionType = 'FILL_REQUEST' | 'AUTO_REFILL';
/** Where a scheduled action stands (ScheduledActionStatus). */
export type ActionStatus = 'PENDING' | 'CANCELLED' | 'COMPLETE';

/**
 * Something the service does later for a customer: submit a fill request held as too soon
 * (`FILL_REQUEST`), or a subscription's next refill (`AUTO_REFILL`). A pending action is a
 * background job: the scheduler claims it by setting `locked_until` (its lease).
 */
export interface ScheduledActionsTable extends Owned {
  /** A version-4 UUID. */
  id: string;
  action_type: ActionType;
  status: ActionStatus;
  /** When it is due (ISO 8601). */
  submit_on: string;
  locked_until: string | null;
  /** The fill request it submits (`FILL_REQUEST`), or submitted (`AUTO_REFILL`, once `COMPLETE`). */
  fill_request_token: string | null;
  /** `FILL_REQUEST`: a fill request body (JSON) to submit instead of the held one. */
  payload: string | null;
  /** Why it was canceled. */
  reason: string | null;
  /** The request that scheduled it (the API request, or the job whose cycle made it). */
  origin_request_id: string | null;
  /** `AUTO_REFILL`: the subscription and which of its refills (1 for the first). */
  auto_refill_id: number | null;
  cycle: number | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    scheduled_actions: ScheduledActionsTable;
  }
}
