import type { Owner } from '../auth/principal.js';
import type { WebhookConfig } from '../config.js';
import type { Db } from '../db/database.js';
import type { WebhookEndpointRepository } from './webhook-endpoint-repository.js';

/** One delivery attempt to an endpoint, as its health counts it. */
export interface EndpointAttempt {
  succeeded: boolean;
  /** When the attempt ended (ISO 8601). */
  at: string;
}

/** An endpoint that recorded attempts have just disabled: the notice for its customer. */
export interface DisabledEndpoint {
  owner: Owner;
  failures: number;
  failingSince: string;
  reason: string;
}

/**
 * Disables endpoints that keep failing, as Stripe and Svix do: an endpoint whose attempts
 * have all failed for `disableAfterMs`, at least `disableMinFailures` of them in a row (so one
 * failure of a new endpoint is not enough), is disabled. Its events are then not attempted
 * (they end `failed`) until it is enabled again; the reason is the notice its read shows.
 */
export class WebhookEndpointHealth {
  constructor(
    private readonly repository: WebhookEndpointRepository,
    private readonly config: Pick<WebhookConfig, 'disableAfterMs' | 'disableMinFailures'>,
  ) {}

  /**
   * Records an endpoint's attempts, in the order they ended, in the unit of work that records
   * their outcomes; answers the endpoint when they disabled it.
   */
  async record(owner: Owner, attempts: readonly EndpointAttempt[], trx: Db): Promise<DisabledEndpoint | undefined> {
    const lastSuccess = attempts.findLastIndex((a) => a.succeeded);
    const failuresAfter = attempts.slice(lastSuccess + 1);
    const health = await this.repository.recordAttempts(
      owner,
      { succeeded: lastSuccess >= 0, failures: failuresAfter.length, firstFailureAt: failuresAfter[0]?.at ?? null },
      trx,
    );
    const disableAfterMs = this.config.disableAfterMs;
    if (!health?.failing_since || health.status !== 'enabled' || disableAfterMs === null || failuresAfter.length === 0) return undefined;
    const failures = Number(health.consecutive_failures);
    const at = failuresAfter.at(-1)!.at;
    if (failures < this.config.disableMinFailures || Date.parse(at) - Date.parse(health.failing_since) < disableAfterMs) return undefined;
    const reason =
      `Every delivery attempt since ${health.failing_since} failed (${failures} in a row), so deliveries stopped at ${at}. ` +
      'Fix the receiver, enable the endpoint again (POST /v1/webhook_endpoint/enable or PUT /v1/webhook_endpoint), ' +
      'then redeliver the events it missed (POST /v1/webhook_events/redeliver).';
    if (!(await this.repository.disable(owner, at, reason, trx))) return undefined;
    return { owner, failures, failingSince: health.failing_since, reason };
  }
}
