import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentPatientPrescription } from '../../prescriptions/prescription-presenter.js';

export const listPatientPrescriptions: Handlers['listPatientPrescriptions'] = async ({ path }, ctx) => {
  const prescriptions = await ctx.services.prescriptions.listForPatient(ownerOf(ctx), path.patient_token);
  return {
    status: 200,
    body: { patient_token: path.patient_token, prescriptions: prescriptions.map(presentPatientPrescription) },
  };
};
