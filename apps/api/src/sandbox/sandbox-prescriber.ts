import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { forbidden } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import type { PatientCreate, PatientService } from '../patients/patient-service.js';
import type { ElectronicPrescriptionReceived, PrescriptionInput, PrescriptionIntake } from '../prescriptions/prescription-intake.js';
import { SANDBOX_PRESCRIPTION_DEFAULTS } from './sandbox-prescriptions.js';

const SANDBOX_ONLY = 'This operation is available in the sandbox only.';

type NewRx = components['schemas']['PatientSimulationNewRx'];

/** A new patient's `simulation.newRx` object as prescription fields (the omitted ones keep the sandbox's defaults). */
function newRxFields(newRx: NewRx): Partial<PrescriptionInput> {
  const name = newRx.prescribed_written_name ?? newRx.prescribed_brand_name ?? newRx.prescribed_generic_name;
  const fields: Partial<PrescriptionInput> = {
    medication_name: name,
    medication_sig: newRx.medication_sig,
    prescriber: newRx.prescriber,
    days_supply: newRx.days_supply,
    refills: newRx.number_of_refills_allowed,
    prescribed_ndc: newRx.prescribed_ndc,
    quantity: newRx.prescribed_quantity,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/**
 * The prescriber's system, played by the sandbox (`POST /v1/sandbox/electronic_prescriptions`):
 * sends a sandbox patient an electronic prescription, the omitted fields taken from the
 * sandbox's defaults (as the operation's schema documents them).
 */
export class SandboxPrescriber {
  constructor(
    private readonly units: UnitsOfWork,
    private readonly intake: PrescriptionIntake,
    private readonly patients: PatientService,
  ) {}

  send(owner: Owner, patientToken: string, fields: Partial<PrescriptionInput>, requestId: string): Promise<ElectronicPrescriptionReceived> {
    if (owner.environment !== 'sandbox') throw forbidden(SANDBOX_ONLY);
    const prescription = { ...SANDBOX_PRESCRIPTION_DEFAULTS, ...fields };
    return this.units.run(requestId, (uow) => this.intake.receiveElectronic(uow, owner, patientToken, prescription));
  }

  /**
   * A new sandbox patient with `simulation.newRx`: the patient and the prescription the
   * prescriber sends it (`true` the default one, an object the one it describes, `false`
   * none) in one unit of work, so that a failure leaves neither. Answers the patient's token.
   */
  async admitWithNewRx(owner: Owner, input: PatientCreate, newRx: boolean | NewRx, requestId: string): Promise<string> {
    if (owner.environment !== 'sandbox') throw forbidden(SANDBOX_ONLY);
    let token: string | undefined;
    try {
      return await this.units.run(requestId, async (uow) => {
        token = await this.patients.create(owner, input, uow.trx);
        if (newRx !== false) {
          const prescription = { ...SANDBOX_PRESCRIPTION_DEFAULTS, ...(newRx === true ? {} : newRxFields(newRx)) };
          await this.intake.receiveElectronic(uow, owner, token, prescription);
        }
        return token;
      });
    } catch (error) {
      // The unit read the new patient through the read cache; the patient was never committed.
      if (token !== undefined) this.patients.forget(token);
      throw error;
    }
  }
}
