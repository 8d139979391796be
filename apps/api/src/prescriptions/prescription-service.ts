import type { Owner } from '../auth/principal.js';
import { notFound, notOwner } from '../errors.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PrescriptionRepository, PrescriptionRow } from './prescription-repository.js';

export const PRESCRIPTION_NOT_FOUND = 'Unable to find Prescription.';
export const PRESCRIPTION_NOT_OWNED = 'Prescription does not belong to this customer.';

export class PrescriptionService {
  constructor(
    private readonly prescriptions: PrescriptionRepository,
    private readonly patients: PatientService,
  ) {}

  /** The prescriptions of a patient the caller owns (same refusals as reading the patient). */
  async listForPatient(owner: Owner, patientToken: string): Promise<PrescriptionRow[]> {
    const patient = await this.patients.get(owner, patientToken);
    return this.prescriptions.listForPatient(patient.token);
  }

  /**
   * The prescription with this token, if the caller may see it: another customer's is
   * refused as for patients (seed 7.5); the caller's own in the other environment does not
   * exist here.
   */
  async get(owner: Owner, token: string): Promise<PrescriptionRow> {
    const row = await this.prescriptions.findByToken(token);
    if (!row) throw notFound(PRESCRIPTION_NOT_FOUND);
    if (row.customer_id !== owner.customerId) throw notOwner(PRESCRIPTION_NOT_OWNED);
    if (row.environment !== owner.environment) throw notFound(PRESCRIPTION_NOT_FOUND);
    return row;
  }
}
