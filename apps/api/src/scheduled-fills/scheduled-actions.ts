import { randomUUID } from 'node:crypto';
import type { Owner } from '../auth/principal.js';
import { ownerColumns } from '../db/ownership.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import { nowIso } from '../tokens.js';
import type { ScheduledActionRepository, ScheduledActionRow } from './scheduled-action-repository.js';
import type { ActionType } from './scheduled-action-tables.js';

const DEFAULT_LIMIT = 20;

/** What a new action is: its type, when it is due, and what it acts on. */
export interface NewAction {
  action_type: ActionType;
  submit_on: string;
  fill_request_token?: string;
  auto_refill_id?: number;
  cycle?: number;
}

export interface ActionPage {
  rows: ScheduledActionRow[];
  next_page_token: string | null;
  total: number;
  per_page: number;
}

/** Scheduled actions: made by the areas that hold or repeat fill requests, listed for their customer. */
export class ScheduledActions {
  constructor(readonly repository: ScheduledActionRepository) {}

  /** A new pending action, in the unit of work that decided it. */
  async schedule(uow: UnitOfWork, owner: Owner, action: NewAction): Promise<ScheduledActionRow> {
    const at = nowIso();
    const row: ScheduledActionRow = {
      id: randomUUID(),
      ...ownerColumns(owner),
      action_type: action.action_type,
      status: 'PENDING',
      submit_on: action.submit_on,
      locked_until: null,
      fill_request_token: action.fill_request_token ?? null,
      payload: null,
      reason: null,
      origin_request_id: uow.requestId,
      auto_refill_id: action.auto_refill_id ?? null,
      cycle: action.cycle ?? null,
      created_at: at,
      updated_at: at,
    };
    await this.repository.insert(row, uow.trx);
    return row;
  }

  /** One page of the owner's actions, earliest created first (`nextPageToken` is the cursor of the last one answered). */
  async list(owner: Owner, params: { limit?: number; nextPageToken?: string }): Promise<ActionPage> {
    const limit = params.limit ?? DEFAULT_LIMIT;
    const scope = { owner, list: 'scheduled_actions' };
    const cursor = params.nextPageToken === undefined ? undefined : decodeCursor(scope, params.nextPageToken, 'nextPageToken');
    const [rows, total] = await Promise.all([this.repository.page(owner, cursor && { created_at: cursor.after, id: cursor.token }, limit + 1), this.repository.count(owner)]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      rows: page,
      next_page_token: rows.length > limit && last ? encodeCursor(scope, { after: last.created_at, token: last.id }) : null,
      total,
      per_page: limit,
    };
  }
}
