import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { LabReportFileError, readLabReport } from '../diagnostics/lab-report-files.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import { CliError, parseAction, required, staffAction, type Command } from './command.js';

export const LAB_USAGE = [
  '       pnpm admin lab ship --order <order> --carrier <name> --tracking-number <n> [--serial <kit serial>]',
  '       pnpm admin lab in-transit|deliver|in-transit-to-lab|deliver-to-lab --order <order>',
  '       pnpm admin lab ship-to-lab --order <order> --carrier <name> --tracking-number <n>',
  '       pnpm admin lab access --order <order> --accession-id <id>',
  '       pnpm admin lab results --order <order> --file <report.json|report.csv>',
  '       pnpm admin lab reject --order <order> --reason <text> --fixable true|false [--panel <code or name>]',
];

const ACTIONS = ['ship', 'in-transit', 'deliver', 'ship-to-lab', 'in-transit-to-lab', 'deliver-to-lab', 'access', 'results', 'reject'];

/**
 * `lab <action>`: the milestones of a lab order as the carrier and the lab report them, in
 * order (diagnostics/diagnostic-lifecycle.ts); each records its `DIAGNOSTICS_*` event.
 */
export const lab: Command = async (services, rest) => {
  const { action, values } = parseAction(rest, ACTIONS, ['order', 'carrier', 'tracking-number', 'serial', 'accession-id', 'file', 'reason', 'fixable', 'panel']);
  const order = required(values, 'order');
  const lifecycle = services.diagnosticLifecycle;
  const run = <T extends object>(work: (uow: UnitOfWork) => Promise<T>) => staffAction(services, { operation: `lab ${action}`, recordIds: [order] }, work);
  const shipment = () => ({ carrier: required(values, 'carrier'), tracking_number: required(values, 'tracking-number') });
  switch (action) {
    case 'ship': {
      const leg = shipment();
      return run((uow) => lifecycle.ship(uow, order, { ...leg, ...(values.serial ? { kit_serial: values.serial } : {}) }));
    }
    case 'in-transit':
      return run((uow) => lifecycle.inTransit(uow, order));
    case 'deliver':
      return run((uow) => lifecycle.deliver(uow, order));
    case 'ship-to-lab': {
      const leg = shipment();
      return run((uow) => lifecycle.shipToLab(uow, order, leg));
    }
    case 'in-transit-to-lab':
      return run((uow) => lifecycle.inTransitToLab(uow, order));
    case 'deliver-to-lab':
      return run((uow) => lifecycle.deliverToLab(uow, order));
    case 'access': {
      const accession = required(values, 'accession-id');
      return run((uow) => lifecycle.accessKit(uow, order, accession));
    }
    case 'results': {
      const file = required(values, 'file');
      let report;
      try {
        report = readLabReport(readFileSync(file, 'utf8'), basename(file));
      } catch (error) {
        if (error instanceof LabReportFileError) throw new CliError(error.message, 2);
        throw new CliError(`cannot read ${file}: ${(error as Error).message}`, 2);
      }
      return run((uow) => lifecycle.releaseResults(uow, order, report));
    }
    default: {
      const fixable = required(values, 'fixable');
      if (fixable !== 'true' && fixable !== 'false') throw new CliError('--fixable must be true or false', 2);
      const rejection = { reason: required(values, 'reason'), fixable: fixable === 'true', ...(values.panel ? { panel: values.panel } : {}) };
      return run((uow) => lifecycle.reject(uow, order, rejection));
    }
  }
};
