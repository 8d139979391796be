/**
 * `pnpm admin <command>`: operator commands over the same database settings as the server.
 *   create-customer --name <name> [--webhook-url <url>]
 *       prints {"customer_id","sandbox_api_key","production_api_key","tenant_id","audience",
 *       "sandbox_client_id","sandbox_client_secret","production_client_id","production_client_secret"}
 *       (and, with --webhook-url, "sandbox_webhook_secret": the sandbox endpoint's signing secret)
 *   create-client | revoke-client | list-clients ...   OAuth 2.0 machine clients (client-commands.ts)
 *   set-webhook --customer <id> --environment sandbox|production --url <url>
 *       prints the endpoint; its "secret" only when the endpoint is new (shown once)
 *   audit [--customer <id>] [--record <id>] [--operation <id>] [--since <date-time>] ... (audit-command.ts)
 *       prints {"events": [...]}: who read or wrote which patient records, when, newest first
 *   reencrypt [--batch-size <rows>]
 *       seals every encrypted field again under SECRETS_KEY (after a rotation); prints counts
 *   enable-webhook --customer <id> --environment sandbox|production
 *       enables a disabled endpoint again (enable-webhook.ts) and prints it
 *   lab <action> --order <id> ...   the milestones of a lab order (lab-commands.ts)
 *   consult <action> --consult <id> ...   a provider's decision on a consult (consult-commands.ts)
 *   reference-data import-locations|import-inventory|import-zip-centroids --file <f> | show
 *       the pharmacy reference data (reference-data-commands.ts); coverage enable|disable --customer <id>
 *   same-day <action> --id <order> ...   the courier's moves of a same-day delivery (same-day-commands.ts)
 *   transfer | direct-transfer | fill | prescription <action> ...   the pharmacy staff's actions
 *       (transfer-commands.ts, fill-commands.ts, prescription-commands.ts): each runs one action
 *       of an area's lifecycle and prints the records changed and the events recorded
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createServices, type Services } from '../services.js';
import { audit, AUDIT_USAGE } from './audit-command.js';
import { careTeam, CARE_TEAM_USAGE } from './care-team-commands.js';
import { CLIENT_USAGE, createClient, listClients, revokeClient } from './client-commands.js';
import { CliError, ownerOption, type Command } from './command.js';
import { diagnosticsCatalogue, DIAGNOSTICS_CATALOGUE_USAGE } from './diagnostics-catalogue-commands.js';
import { enableWebhook, ENABLE_WEBHOOK_USAGE } from './enable-webhook.js';
import { consult, CONSULT_USAGE } from './consult-commands.js';
import { fill, FILL_USAGE } from './fill-commands.js';
import { lab, LAB_USAGE } from './lab-commands.js';
import { prescription, PRESCRIPTION_USAGE } from './prescription-commands.js';
import { reencrypt, REENCRYPT_USAGE } from './reencrypt-command.js';
import { coverage, referenceData, REFERENCE_DATA_USAGE } from './reference-data-commands.js';
import { sameDay, SAME_DAY_USAGE } from './same-day-commands.js';
import { directTransfer, transfer, TRANSFER_USAGE } from './transfer-commands.js';
import { setWebhook } from './webhook-commands.js';

const USAGE = [
  'usage: pnpm admin create-customer --name <name> [--webhook-url <url>]',
  '       pnpm admin set-webhook --customer <id> --environment sandbox|production --url <url>',
  ...CLIENT_USAGE,
  ...ENABLE_WEBHOOK_USAGE,
  ...TRANSFER_USAGE,
  ...FILL_USAGE,
  ...SAME_DAY_USAGE,
  ...LAB_USAGE,
  ...CONSULT_USAGE,
  ...PRESCRIPTION_USAGE,
  ...REENCRYPT_USAGE,
  ...AUDIT_USAGE,
  ...DIAGNOSTICS_CATALOGUE_USAGE,
  ...CARE_TEAM_USAGE,
  ...REFERENCE_DATA_USAGE,
].join('\n');

function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

const commands: Record<string, Command> = {
  async 'create-customer'(services, rest) {
    const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, 'webhook-url': { type: 'string' } }, strict: true });
    if (!values.name?.trim()) throw new CliError('--name is required', 2);
    const webhookUrl = values['webhook-url'];
    // Checked before the customer is made (the sandbox allows any address, so syntax is all).
    if (webhookUrl !== undefined && !/^https?:$/.test(protocolOf(webhookUrl))) {
      throw new CliError('--webhook-url must be a valid http or https URL', 2);
    }
    const created = await services.customers.create(values.name);
    if (webhookUrl === undefined) return created;
    const endpoint = await setWebhook(services, created.customer_id, 'sandbox', webhookUrl);
    return { ...created, sandbox_webhook_secret: endpoint.secret };
  },
  async 'set-webhook'(services, rest) {
    const { values } = parseArgs({
      args: rest,
      options: { customer: { type: 'string' }, environment: { type: 'string' }, url: { type: 'string' } },
      strict: true,
    });
    const owner = ownerOption(values);
    if (!values.url) throw new CliError('--url is required', 2);
    const endpoint = await setWebhook(services, owner.customerId, owner.environment, values.url);
    return { customer_id: owner.customerId, environment: owner.environment, ...endpoint };
  },
  'enable-webhook': enableWebhook,
  // OAuth 2.0 machine clients of the platform interfaces.
  'create-client': createClient,
  'revoke-client': revokeClient,
  'list-clients': listClients,
  // The pharmacy staff's actions, one command per lifecycle.
  transfer,
  'direct-transfer': directTransfer,
  fill,
  'same-day': sameDay,
  lab,
  consult,
  prescription,
  // Key rotation: every sealed value under the current key.
  reencrypt,
  // Who read or wrote which patient records, when.
  audit,
  'diagnostics-catalogue': diagnosticsCatalogue,
  'care-team': careTeam,
  // Pharmacy reference data (locations, inventory, ZIP centroids) and who may look up coverage.
  'reference-data': referenceData,
  coverage,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl);
  let services: Services | undefined;
  try {
    await migrateToLatest(database, SecretBox.fromConfig(config));
    services = createServices(database, config);
    const output = await command(services, rest);
    process.stdout.write(`${JSON.stringify(output)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`${error.message}\n${USAGE}`);
      return error.code;
    }
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(error as Error).message}\n${USAGE}`);
      return 2;
    }
    throw error;
  } finally {
    // The staff actions' audit entries are written before the database closes.
    await services?.audit.flush();
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
