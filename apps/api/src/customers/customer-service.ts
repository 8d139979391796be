import { generateApiKey, hashApiKey } from './api-keys.js';
import { ENVIRONMENTS } from '../auth/principal.js';
import { newTenantId, nowIso, recordToken } from '../tokens.js';
import type { CustomerRepository } from './customer-repository.js';
import { newOAuthClient } from './oauth-clients.js';

/** A new customer and its credentials: the keys and secrets are answered here only. */
export interface NewCustomer {
  customer_id: string;
  sandbox_api_key: string;
  production_api_key: string;
  /** The customer as a tenant of the platform interfaces (`x-tenant-id`). */
  tenant_id: string;
  /** The `audience` its clients exchange their credentials for. */
  audience: string;
  sandbox_client_id: string;
  sandbox_client_secret: string;
  production_client_id: string;
  production_client_secret: string;
}

export class CustomerService {
  constructor(
    private readonly customers: CustomerRepository,
    /** The platform API's audience and every scope, which the customer's first clients are granted. */
    private readonly platform: { audience: string; scopes: readonly string[] },
  ) {}

  /**
   * Creates a customer with its tenant id, one API key and one OAuth client (granted every
   * scope) per environment, in one transaction. The keys and secrets are answered only here.
   */
  async create(name: string): Promise<NewCustomer> {
    const trimmed = name.trim();
    if (!trimmed) throw new Error('a customer needs a non-empty name');
    const id = `cus_${recordToken(20)}`;
    const created_at = nowIso();
    const keys = Object.fromEntries(ENVIRONMENTS.map((env) => [env, generateApiKey(env)]));
    const clients = Object.fromEntries(ENVIRONMENTS.map((env) => [env, newOAuthClient(id, env, this.platform.scopes)]));
    const tenant_id = newTenantId(trimmed);
    await this.customers.insertWithCredentials(
      { id, name: trimmed, tenant_id, created_at },
      ENVIRONMENTS.map((environment) => ({
        key_hash: hashApiKey(keys[environment]!),
        customer_id: id,
        environment,
        key_prefix: keys[environment]!.slice(0, 14),
        created_at,
        revoked_at: null,
      })),
      ENVIRONMENTS.map((environment) => clients[environment]!.row),
    );
    return {
      customer_id: id,
      sandbox_api_key: keys.sandbox!,
      production_api_key: keys.production!,
      tenant_id,
      audience: this.platform.audience,
      sandbox_client_id: clients.sandbox!.created.client_id,
      sandbox_client_secret: clients.sandbox!.created.client_secret,
      production_client_id: clients.production!.created.client_id,
      production_client_secret: clients.production!.created.client_secret,
    };
  }

  exists(customerId: string): Promise<boolean> {
    return this.customers.exists(customerId);
  }

  /** The customer's API keys by prefix (never whole: only their hashes are stored). */
  apiKeys(customerId: string) {
    return this.customers.listKeys(customerId);
  }
}
