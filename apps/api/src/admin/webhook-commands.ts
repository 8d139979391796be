import type { Environment } from '../auth/principal.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/database.js';
import { CustomerRepository } from '../customers/customer-repository.js';
import { SimpleTransactor } from '../db/transactor.js';
import { HttpError } from '../errors.js';
import { CliError } from './command.js';
import { LazySecretBox } from '../webhook-endpoints/secret-box.js';
import { WebhookEndpointService, type WebhookEndpointView } from '../webhook-endpoints/webhook-endpoint-service.js';

/** Sets a customer's endpoint of one environment with the API's rules; the secret is answered only when new. */
export async function setWebhook(
  database: DatabaseHandle,
  config: Config,
  customerId: string,
  environment: Environment,
  url: string,
): Promise<WebhookEndpointView> {
  if (!(await new CustomerRepository(database.db).exists(customerId))) throw new CliError(`no customer ${customerId}`);
  const service = new WebhookEndpointService(database.db, new SimpleTransactor(database.db), new LazySecretBox(config), config.webhooks);
  try {
    return await service.set({ customerId, environment }, url);
  } catch (error) {
    if (error instanceof HttpError && 'validation_errors' in error.body) {
      throw new CliError(error.body.validation_errors.map((e) => `--url ${e.message}`).join('; '), 2);
    }
    throw error;
  }
}
