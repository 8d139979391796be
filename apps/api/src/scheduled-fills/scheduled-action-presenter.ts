import type { components } from '@pharmacy/contract';
import { nowIso } from '../tokens.js';
import type { ScheduledActionRow } from './scheduled-action-repository.js';
import type { ActionPage } from './scheduled-actions.js';

type Schemas = components['schemas'];

export function presentScheduledAction(row: ScheduledActionRow): Schemas['ScheduledAction'] {
  const metadata: Schemas['ScheduledAction']['metadata'] = {};
  if (row.fill_request_token) metadata.request_id = row.fill_request_token;
  if (row.auto_refill_id !== null) metadata.auto_refill_id = row.auto_refill_id;
  if (row.cycle !== null) metadata.cycle = row.cycle;
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    submit_on: row.submit_on,
    metadata,
    action_type: row.action_type,
    status: row.status,
    reason: row.reason,
  };
}

export function presentScheduledActionList(page: ActionPage): Schemas['ScheduledActionList'] {
  return {
    timestamp: nowIso(),
    status: 'successful',
    scheduled_actions: page.rows.map(presentScheduledAction),
    pagination: { next_page_token: page.next_page_token, total: page.total, per_page: page.per_page, pages: Math.ceil(page.total / page.per_page) },
  };
}

export function presentScheduledFillRequest(row: ScheduledActionRow): Schemas['ScheduledFillRequest'] {
  return {
    id: row.id,
    status: row.status,
    submit_on: row.submit_on,
    original_fill_request_token: row.fill_request_token!,
    created_at: row.created_at,
    updated_at: row.updated_at,
    reason: row.reason,
  };
}

export function presentSchedule(row: ScheduledActionRow): Schemas['ScheduledFillRequestScheduled'] {
  return { id: row.id, submit_on: row.submit_on, original_fill_request_token: row.fill_request_token! };
}
