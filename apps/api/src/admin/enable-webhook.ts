import { parseArgs } from 'node:util';
import { HttpError } from '../errors.js';
import { randomToken } from '../tokens.js';
import { CliError, ownerOption, type Command } from './command.js';

export const ENABLE_WEBHOOK_USAGE = ['       pnpm admin enable-webhook --customer <id> --environment sandbox|production'];

/**
 * `enable-webhook`: enables a customer's endpoint that was disabled because its deliveries
 * kept failing (the operator's side of `POST /v1/webhook_endpoint/enable`); prints it.
 */
export const enableWebhook: Command = async (services, rest) => {
  const { values } = parseArgs({ args: rest, options: { customer: { type: 'string' }, environment: { type: 'string' } }, strict: true });
  const owner = ownerOption(values);
  if (!(await services.customers.exists(owner.customerId))) throw new CliError(`no customer ${owner.customerId}`);
  try {
    return { customer_id: owner.customerId, environment: owner.environment, ...(await services.webhookEndpoints.enable(owner, `admin_${randomToken(12)}`)) };
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 404) throw new CliError(`no ${owner.environment} webhook endpoint for customer ${owner.customerId}`);
    throw error;
  }
};
