import { ENVIRONMENTS, type Environment } from '../auth/principal.js';
import type { PrescriptionInput } from '../prescriptions/prescription-intake.js';
import { CliError, json, parseAction, required, staffAction, type Command } from './command.js';

export const PRESCRIPTION_USAGE = [
  '       pnpm admin prescription receive --customer <id> --environment sandbox|production --patient <token> [--json <prescription fields>]',
];

/** `prescription receive`: an electronic prescription for a patient (prescriptions/prescription-intake.ts). */
export const prescription: Command = async (services, rest) => {
  const { values } = parseAction(rest, ['receive'], ['customer', 'environment', 'patient', 'json']);
  const environment = required(values, 'environment') as Environment;
  if (!ENVIRONMENTS.includes(environment)) throw new CliError('--environment must be sandbox or production', 2);
  const fields = json<Partial<PrescriptionInput>>(values.json, 'json') ?? {};
  if (!fields.medication_name) throw new CliError('--json must give at least {"medication_name": ...}', 2);
  const owner = { customerId: required(values, 'customer'), environment };
  const patient = required(values, 'patient');
  return staffAction(services, { operation: 'prescription receive', recordIds: [patient] }, (uow) => services.prescriptionIntake.receiveElectronic(uow, owner, patient, fields as PrescriptionInput));
};
