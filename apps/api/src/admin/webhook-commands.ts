import type { Environment } from '../auth/principal.js';
import { HttpError } from '../errors.js';
import { randomToken } from '../tokens.js';
import type { Services } from '../services.js';
import type { WebhookEndpointView } from '../webhook-endpoints/webhook-endpoint-service.js';
import { CliError } from './command.js';

/** Sets a customer's endpoint of one environment with the API's rules; the secret is answered only when new. */
export async function setWebhook(services: Services, customerId: string, environment: Environment, url: string): Promise<WebhookEndpointView> {
  if (!(await services.customers.exists(customerId))) throw new CliError(`no customer ${customerId}`);
  try {
    return await services.webhookEndpoints.set({ customerId, environment }, url, `admin_${randomToken(12)}`);
  } catch (error) {
    if (error instanceof HttpError && 'validation_errors' in error.body && error.body.validation_errors) {
      throw new CliError(error.body.validation_errors.map((e) => `--url ${e.message}`).join('; '), 2);
    }
    throw error;
  }
}
