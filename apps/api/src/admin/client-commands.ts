import { parseArgs } from 'node:util';
import { CliError, ownerOption, required, type Command } from './command.js';

export const CLIENT_USAGE = [
  '       pnpm admin create-client --customer <id> --environment sandbox|production [--scopes "<scope> ..."]',
  '       pnpm admin revoke-client --client <client id>',
  '       pnpm admin list-clients --customer <id>',
];

/**
 * `create-client`: a new OAuth 2.0 machine client of the customer in one environment,
 * granted `--scopes` (space-separated; every scope when the option is left out, none when
 * it is empty). Prints `{client_id, client_secret, scopes}`: the secret is shown this once
 * and stored only as a hash.
 */
export const createClient: Command = async (services, rest) => {
  const { values } = parseArgs({
    args: rest,
    options: { customer: { type: 'string' }, environment: { type: 'string' }, scopes: { type: 'string' } },
    strict: true,
  });
  const owner = ownerOption(values);
  const known = services.oauthClients.allScopes;
  const scopes = values.scopes === undefined ? known : values.scopes.split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !known.includes(scope));
  if (unknown.length) throw new CliError(`--scopes: unknown scope ${unknown.join(', ')} (the scopes are: ${known.join(' ')})`, 2);
  if (!(await services.customers.exists(owner.customerId))) throw new CliError(`no customer ${owner.customerId}`);
  return services.oauthClients.create(owner.customerId, owner.environment, scopes);
};

/**
 * `revoke-client`: the client's secret no longer exchanges (at once), and the tokens it
 * was issued stop verifying: at once in this process, within 30 seconds in a running
 * service (its cache of live clients). Prints `{client_id, revoked_at}`.
 */
export const revokeClient: Command = async (services, rest) => {
  const { values } = parseArgs({ args: rest, options: { client: { type: 'string' } }, strict: true });
  const clientId = required(values, 'client');
  const revoked = await services.oauthClients.revoke(clientId);
  if (!revoked) throw new CliError(`no client ${clientId}`);
  return revoked;
};

/** `list-clients`: the customer's clients, live and revoked, never their secrets. */
export const listClients: Command = async (services, rest) => {
  const { values } = parseArgs({ args: rest, options: { customer: { type: 'string' } }, strict: true });
  const customerId = required(values, 'customer');
  if (!(await services.customers.exists(customerId))) throw new CliError(`no customer ${customerId}`);
  const clients = await services.oauthClients.list(customerId);
  return { customer_id: customerId, clients: clients.map((c) => ({ ...c, scopes: c.scopes ? c.scopes.split(' ') : [] })) };
};
