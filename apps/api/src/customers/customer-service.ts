import { generateApiKey, hashApiKey } from './api-keys.js';
import { ENVIRONMENTS } from '../auth/principal.js';
import { nowIso, randomToken } from '../tokens.js';
import type { CustomerRepository } from './customer-repository.js';

export interface NewCustomer {
  customer_id: string;
  sandbox_api_key: string;
  production_api_key: string;
}

export class CustomerService {
  constructor(private readonly customers: CustomerRepository) {}

  /** Creates a customer with one key per environment. The keys are answered only here. */
  async create(name: string): Promise<NewCustomer> {
    const trimmed = name.trim();
    if (!trimmed) throw new Error('a customer needs a non-empty name');
    const id = `cus_${randomToken(20)}`;
    const created_at = nowIso();
    const keys = Object.fromEntries(ENVIRONMENTS.map((env) => [env, generateApiKey(env)]));
    await this.customers.insertWithKeys(
      { id, name: trimmed, created_at },
      ENVIRONMENTS.map((environment) => ({
        key_hash: hashApiKey(keys[environment]!),
        customer_id: id,
        environment,
        key_prefix: keys[environment]!.slice(0, 14),
        created_at,
        revoked_at: null,
      })),
    );
    return { customer_id: id, sandbox_api_key: keys.sandbox!, production_api_key: keys.production! };
  }

  exists(customerId: string): Promise<boolean> {
    return this.customers.exists(customerId);
  }
}
