import type { Owner } from '../auth/principal.js';
import { forbidden } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import type { ElectronicPrescriptionReceived, PrescriptionInput, PrescriptionIntake } from '../prescriptions/prescription-intake.js';
import { SANDBOX_PRESCRIPTION_DEFAULTS } from './sandbox-prescriptions.js';

const SANDBOX_ONLY = 'This operation is available in the sandbox only.';

/**
 * The prescriber's system, played by the sandbox (`POST /v1/sandbox/electronic_prescriptions`):
 * sends a sandbox patient an electronic prescription, the omitted fields taken from the
 * sandbox's defaults (as the operation's schema documents them).
 */
export class SandboxPrescriber {
  constructor(
    private readonly units: UnitsOfWork,
    private readonly intake: PrescriptionIntake,
  ) {}

  send(owner: Owner, patientToken: string, fields: Partial<PrescriptionInput>, requestId: string): Promise<ElectronicPrescriptionReceived> {
    if (owner.environment !== 'sandbox') throw forbidden(SANDBOX_ONLY);
    const prescription = { ...SANDBOX_PRESCRIPTION_DEFAULTS, ...fields };
    return this.units.run(requestId, (uow) => this.intake.receiveElectronic(uow, owner, patientToken, prescription));
  }
}
