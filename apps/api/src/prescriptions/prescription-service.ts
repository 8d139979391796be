import type { Principal } from '../auth/principal.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PrescriptionRepository, PrescriptionRow } from './prescription-repository.js';

export class PrescriptionService {
  constructor(
    private readonly prescriptions: PrescriptionRepository,
    private readonly patients: PatientService,
  ) {}

  /** The prescriptions of a patient the caller owns (same refusals as reading the patient). */
  async listForPatient(owner: Principal, patientToken: string): Promise<PrescriptionRow[]> {
    const patient = await this.patients.get(owner, patientToken);
    return this.prescriptions.listForPatient(patient.token);
  }
}
