import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { validationFailed, type ValidationErrorItem } from '../errors.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import type { FeedQuery, TimestampOperator, WebhookEventRepository } from './webhook-event-repository.js';
import { presentFeedEvent } from './webhook-event-presenter.js';

type Schemas = components['schemas'];

/** The spec's default and maximum page size. */
export const DEFAULT_LIMIT = 100;

/** The only type `GET /v1/webhook_events/{webhook_type}` lists, and the events it means. */
const LISTABLE_TYPES: Record<string, string> = { notify_rx: 'NOTIFY_RX' };

export const TIMESTAMP_SYNTAX = 'must be {operator}:{value} with an operator of [$lt, $gt, $lte, $gte, $eq]';
const UNSUPPORTED_TYPE = `must be one of [${Object.keys(LISTABLE_TYPES).join(', ')}]`;
const BAD_PAGE_TOKEN = 'is not a valid page token';

const OPERATORS: Record<string, TimestampOperator> = { $lt: '<', $gt: '>', $lte: '<=', $gte: '>=' };
const RANGE_CONDITION = /^(\$(?:lt|gt|lte|gte)):([0-9]{1,12})$/;
const EQUALITY_CONDITION = /^\$eq:([^\s&]{1,64})$/;

interface EventFeedParams {
  timestamp?: string[];
  limit?: number;
  next?: string;
  status?: string;
  request_id?: string;
  id?: string;
}

type Conditions = FeedQuery['timestamp'];

/**
 * Parses `timestamp` conditions; undefined when one is malformed. `$eq` with a value that
 * is not an integer is valid but matches no event (`matchesNothing`).
 */
function parseTimestampConditions(values: string[]): { conditions: Conditions; matchesNothing: boolean } | undefined {
  const conditions: Conditions = [];
  let matchesNothing = false;
  for (const value of values) {
    const range = RANGE_CONDITION.exec(value);
    if (range) {
      conditions.push({ operator: OPERATORS[range[1]!]!, value: Number(range[2]) });
      continue;
    }
    const equality = EQUALITY_CONDITION.exec(value);
    if (!equality) return undefined;
    if (/^[0-9]{1,12}$/.test(equality[1]!)) conditions.push({ operator: '=', value: Number(equality[1]) });
    else matchesNothing = true;
  }
  return { conditions, matchesNothing };
}

/**
 * The event feed (seed 4.6): a customer's events of one environment, exactly as delivered,
 * with their delivery state, in time order, by cursor.
 */
export class WebhookEventService {
  constructor(private readonly events: WebhookEventRepository) {}

  /** Every type (`GET /v1/webhook_events`). */
  list(owner: Owner, params: EventFeedParams): Promise<Schemas['WebhookEventList']> {
    return this.page(owner, params, []);
  }

  /** One type (`GET /v1/webhook_events/{webhook_type}`); only `notify_rx` can be listed. */
  listByType(owner: Owner, webhookType: string, params: EventFeedParams): Promise<Schemas['WebhookEventList']> {
    const callbackType = LISTABLE_TYPES[webhookType];
    const errors = callbackType ? [] : [{ key: 'webhook_type', message: UNSUPPORTED_TYPE }];
    return this.page(owner, params, errors, callbackType);
  }

  /**
   * The owner's most recent events, newest first (the dashboard): `limit` of them before the
   * event `beforeId` when given, and the id to continue before (null on the last page). An
   * id that is not one of the owner's events reads as the first page.
   */
  async recent(owner: Owner, beforeId: string | undefined, limit: number): Promise<{ results: Schemas['WebhookEventListItem'][]; before: string | null }> {
    const before = beforeId === undefined ? undefined : await this.events.position(owner, beforeId);
    const rows = await this.events.newestFirst(owner, before, limit + 1);
    const results = rows.slice(0, limit);
    return { results: results.map(presentFeedEvent), before: rows.length > limit ? results[results.length - 1]!.id : null };
  }

  private async page(
    owner: Owner,
    params: EventFeedParams,
    errors: ValidationErrorItem[],
    callbackType?: string,
  ): Promise<Schemas['WebhookEventList']> {
    const parsed = parseTimestampConditions(params.timestamp ?? []);
    if (!parsed) errors.push({ key: 'timestamp', message: TIMESTAMP_SYNTAX });
    const scope = { owner, list: 'webhook_events' };
    let afterId: string | undefined;
    if (params.next !== undefined) {
      try {
        afterId = decodeCursor(scope, params.next).token;
      } catch {
        errors.push({ key: 'next', message: BAD_PAGE_TOKEN });
      }
    }
    // The token names the last event answered; reading its position back from the owner's
    // events both resumes after it and refuses tokens issued to another customer or environment.
    const after = afterId === undefined ? undefined : await this.events.position(owner, afterId);
    if (afterId !== undefined && !after) errors.push({ key: 'next', message: BAD_PAGE_TOKEN });
    if (errors.length || !parsed) throw validationFailed(errors);

    if (parsed.matchesNothing) return { results: [], next_page_token: null };
    const limit = params.limit ?? DEFAULT_LIMIT;
    const rows = await this.events.list(owner, {
      callbackType,
      status: params.status,
      requestId: params.request_id,
      id: params.id,
      timestamp: parsed.conditions,
      after,
      limit: limit + 1,
    });
    const results = rows.slice(0, limit);
    const last = results[results.length - 1];
    return {
      results: results.map(presentFeedEvent),
      next_page_token: rows.length > limit && last ? encodeCursor(scope, { after: String(last.timestamp), token: last.id }) : null,
    };
  }
}
