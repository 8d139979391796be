import { parseArgs } from 'node:util';
import { ENVIRONMENTS, type Environment, type Owner } from '../auth/principal.js';
import type { RecordedEvent } from '../events/event-outbox.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import { auditStaffAction } from './staff-audit.js';
import type { Services } from '../services.js';
import { randomToken } from '../tokens.js';

/** An admin command: runs on the migrated database's services and answers what is printed as JSON. */
export type Command = (services: Services, rest: string[]) => Promise<unknown>;

/** A refused command: `message` goes to stderr with the usage, `code` is the exit code (2: bad arguments). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

/** What a staff action is, for the audit trail: `fill dispense`, and the record ids it was given. */
export interface StaffActionName {
  operation: string;
  recordIds: string[];
}

/**
 * Runs one staff action in its own unit of work, under a request id of its own (the events
 * it records carry it); answers what the action answered and the events it recorded. The
 * action is recorded in the audit trail (staff-audit.ts), failed or not.
 */
export async function staffAction<T extends object>(services: Services, name: StaffActionName, action: (uow: UnitOfWork) => Promise<T>) {
  const requestId = `admin_${randomToken(12)}`;
  let touched: { events: readonly RecordedEvent[]; owners: readonly Owner[] } = { events: [], owners: [] };
  try {
    const result = await services.units.run(requestId, async (uow) => {
      touched = uow;
      return { ...(await action(uow)), events: uow.events };
    });
    auditStaffAction(services.audit, { ...name, requestId, status: 200, ...touched });
    return result;
  } catch (error) {
    auditStaffAction(services.audit, { ...name, requestId, status: (error as { statusCode?: number }).statusCode ?? 500, events: [], owners: [] });
    throw error;
  }
}

/** `<command> <action> --option value...`: the action and the parsed options. */
export function parseAction(rest: string[], actions: string[], options: string[]) {
  const [action, ...args] = rest;
  if (!action || !actions.includes(action)) throw new CliError(`the action must be one of ${actions.join(', ')}`, 2);
  const { values } = parseArgs({
    args,
    options: Object.fromEntries(options.map((o) => [o, { type: 'string' as const }])),
    strict: true,
  });
  return { action, values: values as Record<string, string | undefined> };
}

/** The value of a required option. */
export function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value?.trim()) throw new CliError(`--${name} is required`, 2);
  return value;
}

/** The JSON value of an option, when given. */
export function json<T>(text: string | undefined, name: string): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError(`--${name} must be valid JSON`, 2);
  }
}

/** The owner `--customer <id> --environment sandbox|production` name. */
export function ownerOption(values: Record<string, string | undefined>): Owner {
  const customerId = required(values, 'customer');
  if (!ENVIRONMENTS.includes(values.environment as Environment)) throw new CliError('--environment must be sandbox or production', 2);
  return { customerId, environment: values.environment as Environment };
}
