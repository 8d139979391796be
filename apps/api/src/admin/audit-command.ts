import { parseArgs } from 'node:util';
import type { AuditQuery } from '../audit/audit-repository.js';
import { ENVIRONMENTS, type Environment } from '../auth/principal.js';
import { CliError, type Command } from './command.js';

export const AUDIT_USAGE = [
  '       pnpm admin audit [--customer <id>] [--environment sandbox|production] [--record <id>] [--operation <operationId>]',
  '                        [--actor <key id|client id|user>] [--action read|write] [--since <date-time>] [--until <date-time>] [--limit <n>]',
];

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

function instant(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) throw new CliError(`--${name} must be an ISO 8601 date or date-time`, 2);
  return new Date(time).toISOString();
}

/**
 * `audit`: the audit trail of patient data access, newest first, filtered (every filter
 * optional, all of them together): prints `{"events": [...]}`. Each event says who
 * (customer, environment, actor), what (operation, read or write, status, record ids) and when.
 */
export const audit: Command = async (services, rest) => {
  const { values } = parseArgs({
    args: rest,
    options: Object.fromEntries(
      ['customer', 'environment', 'record', 'operation', 'actor', 'action', 'since', 'until', 'limit'].map((o) => [o, { type: 'string' as const }]),
    ),
    strict: true,
  }) as { values: Record<string, string | undefined> };
  if (values.environment !== undefined && !ENVIRONMENTS.includes(values.environment as Environment)) {
    throw new CliError('--environment must be sandbox or production', 2);
  }
  if (values.action !== undefined && values.action !== 'read' && values.action !== 'write') throw new CliError('--action must be read or write', 2);
  const limit = Number(values.limit ?? DEFAULT_LIMIT);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new CliError(`--limit must be an integer from 1 to ${MAX_LIMIT}`, 2);
  const query: AuditQuery = {
    customerId: values.customer,
    environment: values.environment as Environment | undefined,
    recordId: values.record,
    operation: values.operation,
    actorId: values.actor,
    action: values.action as AuditQuery['action'],
    since: instant(values.since, 'since'),
    until: instant(values.until, 'until'),
    limit,
  };
  // Entries this process holds (none: the command records nothing before it reads) are written first.
  await services.audit.flush();
  return { events: await services.audit.find(query) };
};
