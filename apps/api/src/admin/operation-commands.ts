/**
 * The pharmacy staff's actions as admin commands (production lifecycles are driven by
 * staff; the sandbox's simulator performs the same actions by itself). Each prints the
 * action's result as JSON: the records changed and the events recorded.
 */
import { parseArgs } from 'node:util';
import { ENVIRONMENTS, type Environment } from '../auth/principal.js';
import { loadConfig } from '../config.js';
import type { DatabaseHandle } from '../db/database.js';
import { SHIPMENT_STATUSES, type ShipmentStatus, type TransferOutcome } from '../operations/pharmacy-operations.js';
import type { PrescriptionInput } from '../operations/prescription-intake.js';
import { isRejectionCode } from '../operations/rejection-codes.js';
import { createServices } from '../services.js';
import { CliError, type Command } from './command.js';

export const OPERATION_USAGE = [
  '       pnpm admin transfer contact --token <transfer> --method fax|phone [--name <contact>] [--number <number>]',
  '       pnpm admin transfer complete --token <transfer> --outcomes <json: [{transfer_medication_token?, medication_name?, prescription?: {...}, rejection?: {code, message?}}]>',
  '       pnpm admin transfer reject --token <transfer> --code <TransferRejectionCode> [--message <specifics, TRANSFER_OTHER_REASON only>]',
  '       pnpm admin direct-transfer accept|reject --token <direct transfer> [--reason <reason> (reject)]',
  '       pnpm admin fill dispense --token <fill request>',
  '       pnpm admin fill triage|error --token <fill request> [--message <message>]',
  `       pnpm admin fill ship --order <order> --status ${SHIPMENT_STATUSES.join('|')} [--carrier <name>] [--tracking-number <n>] [--eta <date-time>]`,
  '       pnpm admin prescription receive --customer <id> --environment sandbox|production --patient <token> [--json <prescription fields>]',
];

function operations(database: DatabaseHandle) {
  return createServices(database.db, loadConfig()).operations;
}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value?.trim()) throw new CliError(`--${name} is required`, 2);
  return value;
}

function json<T>(text: string | undefined, name: string): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError(`--${name} must be valid JSON`, 2);
  }
}

/** `<command> <action> --option value...`: the action and the parsed options. */
function parse(rest: string[], actions: string[], options: string[]) {
  const [action, ...args] = rest;
  if (!action || !actions.includes(action)) throw new CliError(`the action must be one of ${actions.join(', ')}`, 2);
  const { values } = parseArgs({
    args,
    options: Object.fromEntries(options.map((o) => [o, { type: 'string' as const }])),
    strict: true,
  });
  return { action, values: values as Record<string, string | undefined> };
}

export const operationCommands: Record<string, Command> = {
  async transfer(database, rest) {
    const { action, values } = parse(rest, ['contact', 'complete', 'reject'], ['token', 'method', 'name', 'number', 'outcomes', 'code', 'message']);
    const token = required(values, 'token');
    const ops = operations(database);
    if (action === 'contact') {
      return ops.contactTransfer(token, {
        contact_method: required(values, 'method'),
        ...(values.name !== undefined ? { contact_name: values.name } : {}),
        ...(values.number !== undefined ? { contact_number: values.number } : {}),
      });
    }
    if (action === 'complete') {
      const outcomes = json<TransferOutcome[]>(required(values, 'outcomes'), 'outcomes');
      if (!Array.isArray(outcomes)) throw new CliError('--outcomes must be a JSON array', 2);
      return ops.completeTransfer(token, outcomes);
    }
    const code = required(values, 'code');
    if (!isRejectionCode(code)) throw new CliError(`--code ${code} is not a transfer rejection code`, 2);
    return ops.rejectTransfer(token, code, values.message);
  },

  async 'direct-transfer'(database, rest) {
    const { action, values } = parse(rest, ['accept', 'reject'], ['token', 'reason']);
    const token = required(values, 'token');
    const ops = operations(database);
    return action === 'accept' ? ops.acceptDirectTransfer(token) : ops.rejectDirectTransfer(token, required(values, 'reason'));
  },

  async fill(database, rest) {
    const { action, values } = parse(
      rest,
      ['dispense', 'triage', 'error', 'ship'],
      ['token', 'message', 'order', 'status', 'carrier', 'tracking-number', 'eta'],
    );
    const ops = operations(database);
    if (action === 'dispense') return ops.dispenseFill(required(values, 'token'));
    if (action === 'triage') return ops.triageFill(required(values, 'token'), values.message);
    if (action === 'error') return ops.failFill(required(values, 'token'), values.message ?? 'The order could not be filled.');
    const status = required(values, 'status') as ShipmentStatus;
    if (!SHIPMENT_STATUSES.includes(status)) throw new CliError(`--status must be one of ${SHIPMENT_STATUSES.join(', ')}`, 2);
    return ops.recordShipment(required(values, 'order'), status, {
      ...(values.carrier !== undefined ? { carrier: values.carrier } : {}),
      ...(values['tracking-number'] !== undefined ? { tracking_number: values['tracking-number'] } : {}),
      ...(values.eta !== undefined ? { eta: values.eta } : {}),
    });
  },

  async prescription(database, rest) {
    const { values } = parse(rest, ['receive'], ['customer', 'environment', 'patient', 'json']);
    const environment = required(values, 'environment') as Environment;
    if (!ENVIRONMENTS.includes(environment)) throw new CliError('--environment must be sandbox or production', 2);
    const fields = json<Partial<PrescriptionInput>>(values.json, 'json') ?? {};
    if (!fields.medication_name) throw new CliError('--json must give at least {"medication_name": ...}', 2);
    return operations(database).receiveElectronicPrescription(
      { customerId: required(values, 'customer'), environment },
      required(values, 'patient'),
      fields as PrescriptionInput,
    );
  },
};
