import { randomBytes } from 'node:crypto';
import type { Owner } from '../auth/principal.js';
import type { WebhookConfig } from '../config.js';
import { contextOf as sealedContext } from '../crypto/sealed-columns.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { SqlCondition } from '../events/event-outbox.js';
import { ownerColumns } from '../db/ownership.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import { invalidField, notFound } from '../errors.js';
import { nowIso, recordToken } from '../tokens.js';
import { RefusedAddressError, type AddressPolicy } from './url-policy.js';
import { ENABLED, type WebhookEndpointRepository, type WebhookEndpointRow } from './webhook-endpoint-repository.js';
import { webhookEndpointSealedColumns, type WebhookEndpointStatus } from './webhook-endpoint-tables.js';
import { DEFAULT_TEST_CALLBACK_TYPE, type CallbackType, type WebhookTestEvents } from './test-events.js';
import { sendWebhook, type WebhookResult } from './webhook-sender.js';

export interface WebhookEndpointView {
  url: string;
  secret_hint: string;
  /** Only in the answer that made the secret. */
  secret?: string;
  status: WebhookEndpointStatus;
  disabled_at: string | null;
  /** The notice of a disabled endpoint: why, and how to enable it. */
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** What a delivery needs: where, the secret in clear, and whether the endpoint takes deliveries. */
export interface DeliveryTarget {
  url: string;
  secret: string;
  disabled: boolean;
}

const NOT_FOUND = 'Unable to find Webhook Endpoint.';
const MAX_URL_LENGTH = 2048;

/** `whsec_` + base64 of 24 random bytes (Standard Webhooks' secret format). */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function hintOf(secret: string): string {
  return `${secret.slice(0, 10)}…`;
}

/** The sealed secret is bound to its column and owner. */
function contextOf(owner: Owner): string {
  return sealedContext(webhookEndpointSealedColumns, 'secret_encrypted', ownerColumns(owner));
}

/**
 * Webhook endpoints: one per customer and environment. Owns the URL rules (absolute
 * http(s), no credentials; production hosts must resolve to public addresses unless the
 * operator allows private ones), the secret's life (made on first set, rotated on request,
 * stored sealed, answered only when made) and whether the endpoint takes deliveries
 * (disabled by `WebhookEndpointHealth` when its attempts keep failing; setting the URL or
 * `enable` enables it again).
 */
export class WebhookEndpointService {
  constructor(
    private readonly repository: WebhookEndpointRepository,
    private readonly units: UnitsOfWork,
    private readonly secrets: SecretBox,
    private readonly config: WebhookConfig,
    /** The public-address rule of production endpoints (the operator's special-purpose ranges). */
    private readonly addresses: AddressPolicy,
    /** The bodies of test deliveries, from the spec's webhook examples. */
    private readonly testEvents: WebhookTestEvents,
  ) {}

  async get(owner: Owner): Promise<WebhookEndpointView> {
    const row = await this.repository.find(owner);
    if (!row) throw notFound(NOT_FOUND);
    return view(row);
  }

  /** Sets the URL (and enables a disabled endpoint); answers the secret only when the endpoint is new. */
  async set(owner: Owner, rawUrl: unknown, requestId: string): Promise<WebhookEndpointView> {
    const url = await this.checkUrl(owner, rawUrl);
    const secret = newWebhookSecret();
    const sealed = this.secrets.seal(secret, contextOf(owner));
    return this.units.run(requestId, async ({ trx }) => {
      const now = nowIso();
      const existing = await this.repository.find(owner, trx);
      if (existing) {
        await this.repository.update(owner, { url, ...ENABLED, updated_at: now }, trx);
        return view({ ...existing, url, ...ENABLED, updated_at: now });
      }
      const row: WebhookEndpointRow = {
        ...ownerColumns(owner),
        url,
        secret_encrypted: sealed,
        secret_hint: hintOf(secret),
        created_at: now,
        updated_at: now,
        ...ENABLED,
      };
      await this.repository.insert(row, trx);
      return { ...view(row), secret };
    });
  }

  /** Enables the endpoint again (its events are attempted from then on); enabling an enabled one changes nothing. */
  async enable(owner: Owner, requestId: string): Promise<WebhookEndpointView> {
    return this.units.run(requestId, async ({ trx }) => {
      const existing = await this.repository.find(owner, trx);
      if (!existing) throw notFound(NOT_FOUND);
      if (existing.status === 'enabled') return view(existing);
      const now = nowIso();
      await this.repository.update(owner, { ...ENABLED, updated_at: now }, trx);
      return view({ ...existing, ...ENABLED, updated_at: now });
    });
  }

  async rotateSecret(owner: Owner, requestId: string): Promise<WebhookEndpointView> {
    const secret = newWebhookSecret();
    const sealed = this.secrets.seal(secret, contextOf(owner));
    return this.units.run(requestId, async ({ trx }) => {
      const existing = await this.repository.find(owner, trx);
      if (!existing) throw notFound(NOT_FOUND);
      const now = nowIso();
      await this.repository.update(owner, { secret_encrypted: sealed, secret_hint: hintOf(secret), updated_at: now }, trx);
      return { ...view({ ...existing, secret_hint: hintOf(secret), updated_at: now }), secret };
    });
  }

  /**
   * Sends one signed test delivery now (not recorded, not retried), also to a disabled
   * endpoint (to check it before enabling it): an example event of the type, marked `test`.
   */
  async test(owner: Owner, callbackType: CallbackType = DEFAULT_TEST_CALLBACK_TYPE): Promise<WebhookResult & { webhookId: string; callbackType: CallbackType }> {
    const event = this.testEvents.eventOf(callbackType);
    if (!event) throw invalidField('callback_type', `must be one of [${this.testEvents.types().join(', ')}]`);
    const target = await this.target(owner);
    if (!target) throw notFound(NOT_FOUND);
    const webhookId = `msg_${recordToken()}`;
    return { ...(await this.send(owner, target, webhookId, JSON.stringify(event))), webhookId, callbackType };
  }

  /** The event types a test delivery can be. */
  testEventTypes(): string[] {
    return this.testEvents.types();
  }

  /** One signed POST of `body` to the owner's endpoint, under the owner's address rule; a `2xx` within the timeout is success. */
  send(owner: Owner, target: DeliveryTarget, webhookId: string, body: string): Promise<WebhookResult> {
    return sendWebhook({ url: target.url, id: webhookId, body, secret: target.secret, timeoutMs: this.config.timeoutMs, publicOnly: this.publicOnly(owner) });
  }

  /** The SQL condition that the owner's endpoint is set and enabled (its events are attempted then), for the statement that records one. */
  acceptingCondition(owner: Owner): SqlCondition {
    return this.repository.acceptingCondition(owner);
  }

  /** The endpoint of an owner with its secret opened, or undefined when none is set. */
  async target(owner: Owner): Promise<DeliveryTarget | undefined> {
    const row = await this.repository.find(owner);
    if (!row) return undefined;
    return { url: row.url, secret: this.secrets.open(row.secret_encrypted, contextOf(owner)), disabled: row.status === 'disabled' };
  }

  /** Production reaches public addresses only, unless WEBHOOK_ALLOW_PRIVATE_URLS; the sandbox any. */
  private publicOnly(owner: Owner): AddressPolicy | undefined {
    return owner.environment === 'production' && !this.config.allowPrivateUrls ? this.addresses : undefined;
  }

  private async checkUrl(owner: Owner, raw: unknown): Promise<string> {
    if (raw === undefined || raw === null) throw invalidField('url', 'is required');
    if (typeof raw !== 'string') throw invalidField('url', 'must be a string');
    const text = raw.trim();
    if (!text) throw invalidField('url', 'is not allowed to be empty');
    if (text.length > MAX_URL_LENGTH) throw invalidField('url', `length must be less than or equal to ${MAX_URL_LENGTH} characters long`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalidField('url', 'must be a valid http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField('url', 'must be a valid http or https URL');
    if (url.username || url.password) throw invalidField('url', 'must not contain a user name or password');
    const addresses = this.publicOnly(owner);
    if (addresses) {
      try {
        // An IP literal is checked as it is; a name, every address it resolves to.
        await addresses.assertPublicHost(url.hostname);
      } catch (error) {
        throw invalidField(
          'url',
          error instanceof RefusedAddressError ? 'must not target a loopback, private or link-local address in production' : 'host could not be resolved',
        );
      }
    }
    return url.toString();
  }
}

function view(row: WebhookEndpointRow): WebhookEndpointView {
  return {
    url: row.url,
    secret_hint: row.secret_hint,
    status: row.status,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
