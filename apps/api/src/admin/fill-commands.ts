import { SHIPMENT_STATUSES, type ShipmentStatus } from '../fill-requests/fill-events.js';
import { CliError, parseAction, required, staffAction, type Command } from './command.js';

export const FILL_USAGE = [
  '       pnpm admin fill dispense --token <fill request>',
  '       pnpm admin fill triage|error --token <fill request> [--message <message>]',
  `       pnpm admin fill ship --order <order> --status ${SHIPMENT_STATUSES.join('|')} [--carrier <name>] [--tracking-number <n>] [--eta <date-time>]`,
];

/** `fill dispense|triage|error|ship`: the staff actions of a fill request and its order (fill-requests/fill-lifecycle.ts). */
export const fill: Command = async (services, rest) => {
  const { action, values } = parseAction(
    rest,
    ['dispense', 'triage', 'error', 'ship'],
    ['token', 'message', 'order', 'status', 'carrier', 'tracking-number', 'eta'],
  );
  const fills = services.fillLifecycle;
  if (action === 'dispense') {
    const token = required(values, 'token');
    return staffAction(services, { operation: 'fill dispense', recordIds: [token] }, (uow) => fills.dispense(uow, token));
  }
  if (action === 'triage') {
    const token = required(values, 'token');
    return staffAction(services, { operation: 'fill triage', recordIds: [token] }, (uow) => fills.triage(uow, token, values.message));
  }
  if (action === 'error') {
    const token = required(values, 'token');
    return staffAction(services, { operation: 'fill error', recordIds: [token] }, (uow) => fills.refuse(uow, token, values.message ?? 'The order could not be filled.'));
  }
  const status = required(values, 'status') as ShipmentStatus;
  if (!SHIPMENT_STATUSES.includes(status)) throw new CliError(`--status must be one of ${SHIPMENT_STATUSES.join(', ')}`, 2);
  const order = required(values, 'order');
  const shipment = {
    ...(values.carrier !== undefined ? { carrier: values.carrier } : {}),
    ...(values['tracking-number'] !== undefined ? { tracking_number: values['tracking-number'] } : {}),
    ...(values.eta !== undefined ? { eta: values.eta } : {}),
  };
  return staffAction(services, { operation: 'fill ship', recordIds: [order] }, (uow) => fills.ship(uow, order, status, shipment));
};
