import { parseArgs } from 'node:util';
import { randomToken } from '../tokens.js';
import { CliError, type Command } from './command.js';
import { auditStaffAction } from './staff-audit.js';

export const REENCRYPT_USAGE = ['       pnpm admin reencrypt [--batch-size <rows>]'];

/**
 * `reencrypt`: seals every sealed value (patients' identifiers, webhook secrets) again under
 * SECRETS_KEY, in batches, beside the running service; prints the counts per field. A value
 * no configured key opens stops it with the field, record and key id.
 */
export const reencrypt: Command = async (services, rest) => {
  const { values } = parseArgs({ args: rest, options: { 'batch-size': { type: 'string' } }, strict: true });
  const batchSize = Number(values['batch-size'] ?? 200);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new CliError('--batch-size must be an integer from 1 to 10000', 2);
  }
  const requestId = `admin_${randomToken(12)}`;
  const report = await services.reencryption.run(batchSize);
  // Every patient's sealed identifiers were opened and sealed again: staff wrote patient data.
  auditStaffAction(services.audit, { operation: 'reencrypt', recordIds: [], requestId, status: 200, events: [], owners: [] });
  return report;
};
