import { CliError, parseAction, required, staffAction, type Command } from './command.js';

export const SAME_DAY_USAGE = [
  '       pnpm admin same-day assign --id <order> --courier <company> [--driver <name>] [--phone <n>] [--tracking-url <url>] [--eta <date-time>]',
  '       pnpm admin same-day pickup --id <order> [--eta <date-time>]',
  '       pnpm admin same-day deliver --id <order> [--missing <what was not delivered>]',
  '       pnpm admin same-day fail|cancel --id <order> --reason <reason>',
];

/**
 * `same-day assign|pickup|deliver|fail|cancel`: the courier's moves of a same-day delivery
 * order (same-day-delivery/same-day-delivery-lifecycle.ts), as pharmacy staff record them.
 */
export const sameDay: Command = async (services, rest) => {
  const { action, values } = parseAction(
    rest,
    ['assign', 'pickup', 'deliver', 'fail', 'cancel'],
    ['id', 'courier', 'driver', 'phone', 'tracking-url', 'eta', 'missing', 'reason'],
  );
  const lifecycle = services.sameDayLifecycle;
  const id = required(values, 'id');
  const name = { operation: `same-day ${action}`, recordIds: [id] };
  if (action === 'assign') {
    const booking = {
      company: required(values, 'courier'),
      name: values.driver ?? null,
      phone: values.phone ?? null,
      tracking_url: values['tracking-url'] ?? null,
      eta: values.eta ?? null,
    };
    return staffAction(services, name, (uow) => lifecycle.assignCourier(uow, id, booking));
  }
  if (action === 'pickup') return staffAction(services, name, (uow) => lifecycle.pickUp(uow, id, values.eta));
  if (action === 'deliver') {
    if (values.missing !== undefined && !values.missing.trim()) throw new CliError('--missing must say what was not delivered', 2);
    return staffAction(services, name, (uow) => lifecycle.deliver(uow, id, values.missing));
  }
  const reason = required(values, 'reason');
  if (action === 'fail') return staffAction(services, name, (uow) => lifecycle.fail(uow, id, reason));
  return staffAction(services, name, (uow) => lifecycle.cancel(uow, id, reason));
};
