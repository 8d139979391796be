import { isRejectionCode } from '../transfers/rejection-codes.js';
import type { TransferOutcome } from '../transfers/transfer-lifecycle.js';
import { CliError, json, parseAction, required, staffAction, type Command } from './command.js';

export const TRANSFER_USAGE = [
  '       pnpm admin transfer contact --token <transfer> --method fax|phone [--name <contact>] [--number <number>]',
  '       pnpm admin transfer complete --token <transfer> --outcomes <json: [{transfer_medication_token?, medication_name?, prescription?: {...}, rejection?: {code, message?}}]>',
  '       pnpm admin transfer reject --token <transfer> --code <TransferRejectionCode> [--message <specifics, TRANSFER_OTHER_REASON only>]',
  '       pnpm admin direct-transfer accept|reject --token <direct transfer> [--reason <reason> (reject)]',
];

/** `transfer contact|complete|reject`: the staff actions of a transfer request (transfers/transfer-lifecycle.ts). */
export const transfer: Command = async (services, rest) => {
  const { action, values } = parseAction(rest, ['contact', 'complete', 'reject'], ['token', 'method', 'name', 'number', 'outcomes', 'code', 'message']);
  const token = required(values, 'token');
  const transfers = services.transferLifecycle;
  if (action === 'contact') {
    const contact = {
      contact_method: required(values, 'method'),
      ...(values.name !== undefined ? { contact_name: values.name } : {}),
      ...(values.number !== undefined ? { contact_number: values.number } : {}),
    };
    return staffAction(services, { operation: 'transfer contact', recordIds: [token] }, (uow) => transfers.contact(uow, token, contact));
  }
  if (action === 'complete') {
    const outcomes = json<TransferOutcome[]>(required(values, 'outcomes'), 'outcomes');
    if (!Array.isArray(outcomes)) throw new CliError('--outcomes must be a JSON array', 2);
    return staffAction(services, { operation: 'transfer complete', recordIds: [token] }, (uow) => transfers.complete(uow, token, outcomes));
  }
  const code = required(values, 'code');
  if (!isRejectionCode(code)) throw new CliError(`--code ${code} is not a transfer rejection code`, 2);
  return staffAction(services, { operation: 'transfer reject', recordIds: [token] }, (uow) => transfers.reject(uow, token, code, values.message));
};

/** `direct-transfer accept|reject`: the staff actions of a direct transfer (direct-transfers/direct-transfer-lifecycle.ts). */
export const directTransfer: Command = async (services, rest) => {
  const { action, values } = parseAction(rest, ['accept', 'reject'], ['token', 'reason']);
  const token = required(values, 'token');
  const directTransfers = services.directTransferLifecycle;
  if (action === 'accept') return staffAction(services, { operation: 'direct-transfer accept', recordIds: [token] }, (uow) => directTransfers.accept(uow, token));
  const reason = required(values, 'reason');
  return staffAction(services, { operation: 'direct-transfer reject', recordIds: [token] }, (uow) => directTransfers.reject(uow, token, reason));
};
